"""Call-based tests (LiveCodeBench functional, its `grade_call_based`) in any language with a call harness.

A test's stdin is LiveCodeBench's input text: one JSON value a line, each an argument (one final newline is
ignored); its expected output is one JSON value. The program (the problem's prompt, if any, then the code) runs
under the language's call harness (a template of its folder: sandboxes/languages/schema.toml), once per test: the
harness calls the function with the arguments and prints the result after the run's marker, then writes the
marker to stderr. The result passes when it equals the expected value by Python's `==` (no float tolerance; a
returned tuple counts as a list). What the harness prints is JSON, with tagged objects for what JSON lacks:
{"t": [...]} a tuple, {"s": [...]} a set, {"fs": [...]} a frozenset, {"d": [[key, value], ...]} a dict (keys of
any type), {"o": "type"} a value that is not plain data, which equals nothing.

A test this language's harness cannot pose (a value of a kind outside `call_harness.values`, or text that is not
JSON) is no fault of the model: UnsupportedTest, graded INFRA_UNSUPPORTED_TEST.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Sequence
from typing import Any

from benchmarks.call_values import argument_lines, kinds
from reward_server.graders.end_marker import new_marker
from reward_server.verdicts import Verdict
from sandboxes.languages import Language

SHOWN_CHARS = 200


class UnsupportedTest(ValueError):
    """A test this language's harness cannot pose; the message says which and why."""


@dataclasses.dataclass(frozen=True)
class CallTest:
    arguments: str      # the argument lines the harness reads
    expected: Any       # the expected return value, decoded


@dataclasses.dataclass(frozen=True)
class CallProgram:
    source: str                     # the harness (with the program in it, unless the program has its own file)
    files: dict[str, str]           # the program's own file, where the harness wants one
    marker: str


class _Opaque:
    """A reported value that is not plain data: equal to nothing but itself."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name} object>"


_TAGS = {"t": tuple, "s": set, "fs": frozenset, "d": dict, "o": _Opaque}


def call_tests(language: Language, io_tests: Sequence[tuple[str, str]]) -> list[CallTest]:
    """The tests as the harness runs and the grader compares them; UnsupportedTest if one cannot be posed."""
    harness = language.call_harness
    if harness is None:
        raise UnsupportedTest(f"{language.key} has no call-based harness")
    tests = []
    for index, (stdin, expected_stdout) in enumerate(io_tests):
        lines = argument_lines(stdin)
        arguments = [_json(line, f"test {index}: argument {n + 1}") for n, line in enumerate(lines)]
        expected = _json(expected_stdout, f"test {index}: the expected value")
        unsupported = set().union(kinds(expected), *map(kinds, arguments)) - set(harness.values)
        if unsupported:
            raise UnsupportedTest(f"test {index}: the {language.key} call harness cannot take "
                                  f"{', '.join(sorted(unsupported))} values")
        tests.append(CallTest("\n".join(lines), expected))
    return tests


def _json(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise UnsupportedTest(f"{what} is not JSON: {exc}") from None


def call_program(language: Language, program: str, function_name: str) -> CallProgram:
    """The harness around `program` for one candidate (a fresh marker)."""
    harness = language.call_harness
    assert harness is not None, "call_tests refuses a language without a harness first"
    marker = new_marker()
    solution = "1" if harness.solution_class and re.search(harness.solution_class, program) else "0"
    text = (harness.template.replace("{marker}", marker).replace("{function}", function_name)
            .replace("{solution}", solution).replace("{program_file}", harness.program_file))
    program = harness.program_prefix + program
    if harness.program_file:
        return CallProgram(text, {harness.program_file: program}, marker)
    return CallProgram(text.replace("{program}", program, 1), {}, marker)


def judge(stdout: str, marker: str, expected: Any) -> tuple[Verdict, str]:
    """PASS or WRONG_ANSWER for a run that finished its harness: the result it reported against the expected."""
    _, found, rest = stdout.rpartition(marker)
    if not found:
        return Verdict.WRONG_ANSWER, "no result was reported (the program closed or replaced stdout)"
    report = rest.partition("\n")[0]
    try:
        result = json.loads(report, object_hook=_untag)
    except (ValueError, TypeError, RecursionError):
        return Verdict.WRONG_ANSWER, f"the result is not a value: {_shown(report)}"
    if result == expected:
        return Verdict.PASS, ""
    return Verdict.WRONG_ANSWER, f"expected {_shown(json.dumps(expected))}, got {_shown(report)}"


def _untag(tagged: dict[str, Any]) -> Any:
    if len(tagged) != 1 or next(iter(tagged)) not in _TAGS:
        raise ValueError(f"unknown tagged value {tagged}")
    tag, content = next(iter(tagged.items()))
    return _TAGS[tag](content)


def _shown(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "…"
