"""Our own problem format: one JSON object a line, described in FORMAT.md next to this file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmarks.problem import COMPARATORS, EXTRACTIONS, Checker, Problem, ProblemFormatError, unique


def _io_test(raw: Any, where: str) -> tuple[str, str]:
    if not isinstance(raw, dict):
        raise ProblemFormatError(f"{where}: each io_tests item must be an object")
    stdin, expected = raw.get("stdin", raw.get("input")), raw.get("expected_stdout", raw.get("output"))
    if not isinstance(stdin, str) or not isinstance(expected, str):
        raise ProblemFormatError(f"{where}: io_tests items need string stdin/expected_stdout (or input/output)")
    return stdin, expected


def _checker(raw: Any, where: str) -> Checker | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or not all(isinstance(raw.get(key), str) for key in ("language", "source")):
        raise ProblemFormatError(f"{where}: checker must be an object with string language and source")
    return Checker(raw["language"], raw["source"])


def _messages(raw: Any, where: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(raw, list) or not raw or not all(
            isinstance(m, dict) and isinstance(m.get("role"), str) and isinstance(m.get("content"), str) for m in raw):
        raise ProblemFormatError(f"{where}: messages must be a non-empty list of {{role, content}} strings")
    return tuple((m["role"], m["content"]) for m in raw)


def problem(row: dict[str, Any], default_benchmark: str, where: str) -> Problem:
    """Validate one row; its `prompt` is asked as one user turn unless `messages` gives the chat, and a
    function-style program starts with it."""
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
    prompt = text("prompt", "")
    require_counterexample = row.get("require_counterexample", False)
    if not isinstance(require_counterexample, bool):
        raise ProblemFormatError(f"{where}: field 'require_counterexample' must be true or false")
    return Problem(
        id=text("id"), benchmark=text("benchmark", default_benchmark),
        language="" if expected is not None else text("language"),
        messages=_messages(row["messages"], where) if "messages" in row else (("user", prompt),),
        code_prompt=prompt if tests else "", tests=tests, stop_tokens=tuple(stop_tokens), io_tests=io_tests,
        comparator=comparator, extraction=extraction, expected=expected, timeout_s=float(row.get("timeout_s", 0.0)),
        function_name=text("function_name", ""), checker=_checker(row.get("checker"), where),
        equation1=text("equation1", ""), equation2=text("equation2", ""),
        require_counterexample=require_counterexample)


def row(problem: Problem) -> dict[str, Any]:
    """The problem as one JSON object of this format, chat included: `problem(row(p), ...)` is `p` again, so a
    problem can travel as a training framework's label and grade exactly as eval grades it."""
    fields: dict[str, Any] = {
        "id": problem.id, "benchmark": problem.benchmark, "messages": problem.chat, "prompt": problem.code_prompt,
        "comparator": problem.comparator, "extraction": problem.extraction, "timeout_s": problem.timeout_s}
    if problem.expected is not None:
        return fields | {"expected": problem.expected, "equation1": problem.equation1,
                         "equation2": problem.equation2, "require_counterexample": problem.require_counterexample}
    fields |= {"language": problem.language, "tests": problem.tests, "stop_tokens": list(problem.stop_tokens),
               "io_tests": [{"stdin": stdin, "expected_stdout": out} for stdin, out in problem.io_tests],
               "function_name": problem.function_name}
    if problem.checker is not None:
        fields["checker"] = {"language": problem.checker.language, "source": problem.checker.source}
    return fields


def load(path: Path) -> list[Problem]:
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
            problems.append(problem(row, path.stem, where))
    return unique(problems, str(path))
