"""The program MultiPL-E / HumanEval run for a function-style completion, and the proof that its tests ran.

MultiPL-E generates with the row's stop tokens and runs ``prompt + completion + "\\n" + tests``.
A completion sampled elsewhere (e.g. by vLLM without those stops) may run on past the function,
so it is cut here at the earliest occurrence of any stop token, which is what generating with
them would have produced. Empty stop tokens are ignored: they would cut everything.

Where the language has a split (split_tests.py), the tests run in a process of their own. Else exit 0 is not enough to
pass (docs/guards.md): the program we run also writes a fresh end-of-tests marker to stderr once the tests have run to
the end, by the language table's `harness` (text around, and rewrites in, the tests). A language with none, or tests
that none of its harnesses fits, runs the plain MultiPL-E program, unguarded.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from reward_server.graders.end_marker import fill, new_marker, problem_marker
from reward_server.graders.split_tests import split_program
from sandboxes.languages import Harness, Language


@dataclasses.dataclass(frozen=True)
class FunctionProgram:
    source: str
    marker: str = ""        # what stderr must carry after exit 0; "" when unguarded
    files: dict[str, str] = dataclasses.field(default_factory=dict)   # beside each side's source: the codec
    tests: str = ""         # the tests' own source, run in a process of their own (split_tests.py); "": none


def cut_at_stop_tokens(completion: str, stop_tokens: Sequence[str]) -> str:
    """`completion` up to (not including) the earliest occurrence of any non-empty stop token."""
    cut = len(completion)
    for token in stop_tokens:
        at = completion.find(token) if token else -1
        if 0 <= at < cut:
            cut = at
    return completion[:cut]


def assemble_program(prompt: str, completion: str, stop_tokens: Sequence[str], tests: str) -> str:
    """prompt + completion cut at the earliest stop token + "\\n" + tests."""
    return prompt + cut_at_stop_tokens(completion, stop_tokens) + "\n" + tests


def function_program(language: Language, prompt: str, completion: str, stop_tokens: Sequence[str],
                     tests: str) -> FunctionProgram:
    """What to run for one function-style candidate: the tests in a process of their own where the language has a
    split, else under the first of its harnesses that fits the tests. Raises split_tests.EntryNotFound."""
    if language.split is not None:
        marker = problem_marker(language.key, prompt, tests)
        cut = cut_at_stop_tokens(completion, stop_tokens)
        end = re.match(language.split.program_end, tests) if language.split.program_end else None
        if end:     # the tests begin by closing what the completion left open: the program's side ends with it
            cut, tests = cut + end.group(0), tests[end.end():]
        harnessed_tests = next((around for harness in language.harness
                                if (around := _around(harness, tests, marker)) is not None), None)
        if harnessed_tests is None:     # the tests' own exit status decides: nothing of the program is in them
            harnessed_tests, marker = tests, ""
        sides = split_program(language, prompt, cut, harnessed_tests, marker)
        return FunctionProgram(sides.program, marker=marker, files=sides.files, tests=sides.tests)
    marker = new_marker()
    program = assemble_program(prompt, completion, stop_tokens, "")
    for harness in language.harness:
        source = harnessed(harness, program, tests, marker)
        if source is not None:
            return FunctionProgram(source, marker=marker)
    return FunctionProgram(program + tests)


def harnessed(harness: Harness, program: str, tests: str, marker: str) -> str | None:
    """program (which ends with "\\n") + prologue + tests, rewritten + "\\n" + epilogue; None when the harness
    does not fit these tests."""
    around = _around(harness, tests, marker)
    return None if around is None else program + around


def _around(harness: Harness, tests: str, marker: str) -> str | None:
    """prologue + tests, rewritten + "\\n" + epilogue; None when the harness does not fit these tests."""
    if harness.when and not re.search(harness.when, tests):
        return None
    for pattern, template in harness.substitute:
        tests = re.sub(pattern, template, tests)
    if harness.rewrite:
        pattern, replacement = harness.rewrite
        tests, found = re.subn(pattern, lambda _: fill(replacement, marker), tests, count=1)
        if not found:
            return None
    epilogue = "\n" + fill(harness.epilogue, marker) if harness.epilogue else ""
    return fill(harness.prologue, marker) + tests + epilogue
