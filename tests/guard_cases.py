"""The shapes every guard test shares (docs/guards.md): a MultiPL-E problem as its language poses it, hacks that pass
as the plain MultiPL-E program and must not pass guarded, and honest programs that keep their verdicts.

A language's test module lists its cases as data and scores them all in one batch through a real server
(`score_cases`, its module's `results` fixture); `case_tests` makes the tests that read them, by candidate id.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import pytest

from reward_server.client import RewardClient
from reward_server.graders.function_style import assemble_program
from reward_server.pb import reward_pb2
from tests.candidates import function_style, stdio, verdict_name
from tests.toolchains import require_ready

SCORE_TIMEOUT_S = 1800
ANY_OUTPUT = reward_pb2.Checker(language="python", source="# MultiPL-E's rule: exit 0 passes, whatever the output\n")


@dataclasses.dataclass(frozen=True)
class Problem:
    """A function-style problem in one language: its prompt opens the function, its tests call it."""
    language: str
    prompt: str
    tests: str
    stops: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class Hack:
    name: str
    completion: str
    verdict: str                 # guarded
    problem: Problem

    def candidate(self) -> reward_pb2.Candidate:
        p = self.problem
        return function_style(f"hack/{self.name}", p.language, p.prompt, self.completion, p.tests,
                              stop_tokens=p.stops)

    def plain(self) -> reward_pb2.Candidate:
        """The plain MultiPL-E program, graded as a stdin/stdout program with empty stdin: exit 0 passes, whatever it
        printed (a checker that accepts any output: test/unit's and luaunit's reports, Perl's `ok!`)."""
        p = self.problem
        return stdio(f"plain/{self.name}", p.language, assemble_program(p.prompt, self.completion, p.stops, p.tests),
                     [("", "")], checker=ANY_OUTPUT)


@dataclasses.dataclass(frozen=True)
class Honest:
    """A right completion that must pass and a wrong one that must get `wrong_verdict`."""
    name: str
    right: str
    wrong: str
    problem: Problem
    wrong_verdict: str = "RUNTIME_ERROR"

    def candidates(self) -> list[reward_pb2.Candidate]:
        p = self.problem
        return [function_style(f"{kind}/{self.name}", p.language, p.prompt, completion, p.tests, stop_tokens=p.stops)
                for kind, completion in (("right", self.right), ("wrong", self.wrong))]


def score_cases(server_address: str, language: str, hacks: list[Hack] = (), held: list[Hack] = (),
                honest: list[Honest] = (), extra: list[reward_pb2.Candidate] = ()) -> dict[str, reward_pb2.ScoreResult]:
    """Every case in one batch, by candidate id: each hack guarded and plain, each held hack (one that fails plainly
    too) guarded only, each honest pair, and `extra` candidates as they are."""
    with RewardClient(server_address) as client:
        [info] = [entry for entry in client.languages().languages if entry.key == language]
        require_ready(language, info.ready, info.reason)
        candidates = list(extra)
        for hack in hacks:
            candidates += [hack.candidate(), hack.plain()]
        candidates += [hack.candidate() for hack in held]
        for case in honest:
            candidates += case.candidates()
        return {result.id: result for result in client.score(candidates, timeout_s=SCORE_TIMEOUT_S)}


def check_hack(hack: Hack, results: dict[str, reward_pb2.ScoreResult]) -> None:
    """It passes as the plain program, and gets its verdict (never a pass) guarded."""
    plain, guarded = results[f"plain/{hack.name}"], results[f"hack/{hack.name}"]
    assert verdict_name(plain) == "PASS", plain
    assert verdict_name(guarded) == hack.verdict, guarded
    assert guarded.reward == 0.0


def check_held(hack: Hack, results: dict[str, reward_pb2.ScoreResult]) -> None:
    assert verdict_name(results[f"hack/{hack.name}"]) == hack.verdict, results[f"hack/{hack.name}"]


def check_honest(case: Honest, results: dict[str, reward_pb2.ScoreResult]) -> None:
    right, wrong = results[f"right/{case.name}"], results[f"wrong/{case.name}"]
    assert verdict_name(right) == "PASS", right
    assert verdict_name(wrong) == case.wrong_verdict, wrong


def case_tests(hacks: Sequence[Hack] = (), held: Sequence[Hack] = (),
               honest: Sequence[Honest] = ()) -> dict[str, Callable[..., None]]:
    """The tests of a guard module's cases, by name, for its globals (`globals().update(case_tests(...))`): each
    reads the module's `results` fixture. A kind without cases gets no test (an empty parametrisation would skip)."""
    tests: dict[str, Callable[..., None]] = {}
    if hacks:
        @pytest.mark.parametrize("hack", hacks, ids=[hack.name for hack in hacks])
        def test_a_hack_that_passes_plainly_fails_guarded(hack: Hack, results) -> None:
            check_hack(hack, results)
        tests[test_a_hack_that_passes_plainly_fails_guarded.__name__] = test_a_hack_that_passes_plainly_fails_guarded
    if held:
        @pytest.mark.parametrize("hack", held, ids=[hack.name for hack in held])
        def test_what_fails_plainly_fails_guarded(hack: Hack, results) -> None:
            check_held(hack, results)
        tests[test_what_fails_plainly_fails_guarded.__name__] = test_what_fails_plainly_fails_guarded
    if honest:
        @pytest.mark.parametrize("case", honest, ids=[case.name for case in honest])
        def test_honest_programs_keep_their_verdicts(case: Honest, results) -> None:
            check_honest(case, results)
        tests[test_honest_programs_keep_their_verdicts.__name__] = test_honest_programs_keep_their_verdicts
    return tests
