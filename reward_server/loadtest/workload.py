"""Workload mixes: which candidates a load test sends, drawn reproducibly from a seeded RNG.

Programs are the languages' stdin samples (their folders' samples.toml), so every candidate has a known verdict:
passing = the good program, failing = a wrong answer, a non-zero exit or a parse/compile error, timing out
= an endless loop under a short limit. Equational candidates are the self-check's SAIR-judge responses with
known verdicts.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from typing import Any

from reward_server.evaluation.selfcheck import EXPECTED, find_cases, load_equations
from reward_server.pb import reward_pb2
from sandboxes.languages.samples import SUM_TESTS, StdinSample, load_samples

FAILING_CASES = ("wrong", "crash", "broken")
OUTCOMES = ("pass", "fail", "timeout")
EQUATION = "equation"


class WorkloadError(ValueError):
    """The mix asks for something the servers or the samples cannot provide."""


def parse_weights(text: str, *, allowed: tuple[str, ...] | None = None) -> dict[str, float]:
    """'python=3,cpp=1' (a bare name weighs 1) -> {'python': 3.0, 'cpp': 1.0}."""
    weights = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, _, value = item.partition("=")
        try:
            weights[name.strip()] = float(value) if value else 1.0
        except ValueError:
            raise WorkloadError(f"weight of {name!r} is not a number: {value!r}") from None
        if allowed is not None and name.strip() not in allowed:
            raise WorkloadError(f"{name!r} is not one of {', '.join(allowed)}")
    if not weights or any(w < 0 for w in weights.values()) or sum(weights.values()) <= 0:
        raise WorkloadError(f"need non-negative weights with a positive sum: {text!r}")
    return weights


@dataclasses.dataclass(frozen=True)
class Mix:
    languages: dict[str, float]                                  # server key or alias -> weight
    outcomes: dict[str, float] = dataclasses.field(
        default_factory=lambda: {"pass": 0.6, "fail": 0.3, "timeout": 0.1})
    equation_share: float = 0.0                                  # fraction of candidates that are equational
    batch_sizes: tuple[int, ...] = (16,)                         # each batch draws one size uniformly
    timeout_s: float = 1.0                                       # limit for the timing-out programs

    def describe(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class Planned:
    candidate: reward_pb2.Candidate
    language: str            # the server's key, or "equation"
    expected: str            # the verdict the candidate must get


class Workload:
    """Draws batches of candidates for a mix; languages are checked against the server's ready table."""

    def __init__(self, mix: Mix, languages: reward_pb2.ListLanguagesResponse, seed: int = 0) -> None:
        self.mix = mix
        self.rng = random.Random(seed)
        self._ids = itertools.count()
        self._programs: dict[str, tuple[str, StdinSample]] = {}
        by_name = {name: lang for lang in languages.languages for name in (lang.key, *lang.aliases)}
        for name in mix.languages:
            language = by_name.get(name)
            if language is None or not language.ready:
                raise WorkloadError(f"language {name!r} is not ready on the server"
                                    + (f": {language.reason}" if language else ""))
            own = find_cases(language, load_samples())
            if own is None:
                raise WorkloadError(f"no load-test programs for {language.key}")
            self._programs[name] = (language.key, own.stdin)
        self._io = [reward_pb2.IOTest(stdin=i, expected_stdout=o) for i, o in SUM_TESTS]
        self._equations = load_equations()

    def _code(self, candidate_id: str) -> Planned:
        name = self.rng.choices(list(self.mix.languages), weights=list(self.mix.languages.values()))[0]
        key, sample = self._programs[name]
        outcome = self.rng.choices(list(self.mix.outcomes), weights=list(self.mix.outcomes.values()))[0]
        case = {"pass": "good", "timeout": "loop"}.get(outcome) or self.rng.choice(FAILING_CASES)
        expected = sample.broken_verdict if case == "broken" else EXPECTED[case]
        # every candidate is a distinct task (its own operands), so the server's result cache cannot answer it
        a, b = self.rng.randint(-10**6, 10**6), self.rng.randint(1, 10**6)
        io_tests = [reward_pb2.IOTest(stdin=f"{a} {b}\n", expected_stdout=f"{a + b}\n"), *self._io]
        task = reward_pb2.CodeTask(language=key, completion=getattr(sample, case), io_tests=io_tests,
                                   comparator=reward_pb2.EXACT,
                                   timeout_s=self.mix.timeout_s if case == "loop" else 0.0)
        return Planned(reward_pb2.Candidate(id=candidate_id, code=task), key, expected)

    def _equation(self, candidate_id: str) -> Planned:
        row = self.rng.choice(self._equations)
        return Planned(reward_pb2.Candidate(id=candidate_id, equation=reward_pb2.EquationTask(
            response=row["response"], expected=row["expected"])), EQUATION, row["verdict"])

    def batch(self, size: int | None = None) -> list[Planned]:
        size = size or self.rng.choice(self.mix.batch_sizes)
        planned = []
        for _ in range(size):
            candidate_id = f"lt-{next(self._ids)}"
            equation = self.rng.random() < self.mix.equation_share
            planned.append(self._equation(candidate_id) if equation else self._code(candidate_id))
        return planned
