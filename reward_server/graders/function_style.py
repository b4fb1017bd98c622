"""The program MultiPL-E / HumanEval run for a function-style completion, and the proof that its tests ran.

MultiPL-E generates with the row's stop tokens and runs ``prompt + completion + "\\n" + tests``.
A completion sampled elsewhere (e.g. by vLLM without those stops) may run on past the function,
so it is cut here at the earliest occurrence of any stop token, which is what generating with
them would have produced. Empty stop tokens are ignored: they would cut everything.

Where the language has a split (split_tests.py), the tests run in a process of their own. Else exit 0 is not enough to
pass (docs/guards.md): the program we run also writes a fresh end-of-tests marker to stderr once the tests have run to
the end, by the language table's `harness` (text around, and rewrites in, the tests). A language with none, or tests
that none of its harnesses fits, runs the plain MultiPL-E program, unguarded. A harness with a `tests_file` gives the
tests a translation unit of their own, which its compile builds with the program's: the program's source is then
the prompt and the completion alone (and the brace the tests begin with), the tests' file the prompt's
declarations and the harnessed tests, so that nothing the program defines reaches the tests.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from reward_server.graders.end_marker import fill, new_marker, problem_marker
from reward_server.graders.split_tests import split_program
from sandboxes.languages import Harness, Language

ENTRY = "{entry}"   # in a harness's declaration: the prompt's function, as its declare regex's group `entry` names it


@dataclasses.dataclass(frozen=True)
class FunctionProgram:
    source: str
    marker: str = ""        # what stderr must carry after exit 0; "" when unguarded
    files: dict[str, str] = dataclasses.field(default_factory=dict)   # beside the source: the tests' own unit
    compile: tuple[str, ...] = ()   # what builds the source and files, in place of the language's compile; ()
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
        harnessed_tests = next((around for harness in language.harness if not harness.tests_file
                                if (around := _around(harness, tests, marker)) is not None), None)
        if harnessed_tests is None:     # the tests' own exit status decides: nothing of the program is in them
            harnessed_tests, marker = tests, ""
        sides = split_program(language, prompt, cut, harnessed_tests, marker)
        return FunctionProgram(sides.program, marker=marker, files=sides.files, tests=sides.tests)
    marker = new_marker()
    program = assemble_program(prompt, completion, stop_tokens, "")
    for harness in language.harness:
        if harness.tests_file:
            fitted = in_units(harness, prompt, program, tests, marker)
        else:
            source = harnessed(harness, program, tests, marker)
            fitted = None if source is None else FunctionProgram(source, marker=marker)
        if fitted is not None:
            return fitted
    return FunctionProgram(program + tests)


def harnessed(harness: Harness, program: str, tests: str, marker: str) -> str | None:
    """program (which ends with "\\n") + prologue + tests, rewritten + "\\n" + epilogue; None when the harness
    does not fit these tests."""
    around = _around(harness, tests, marker)
    return None if around is None else program + around


def in_units(harness: Harness, prompt: str, program: str, tests: str, marker: str) -> FunctionProgram | None:
    """The program (+ what the harness's program_end takes from the start of the tests) as the source, and in the
    harness's tests_file the prompt as its `declare` makes it + prologue + the rest of the tests, rewritten + "\\n" +
    epilogue; None when the harness does not fit this prompt and these tests."""
    pattern, declaration = harness.declare
    declared, found = re.subn(pattern, lambda match: _declared(declaration, match), prompt, count=1)
    end = re.match(harness.program_end, tests) if harness.program_end else None
    if end:
        program, tests = program + end.group(0) + "\n", tests[end.end():]
    around = _around(harness, tests, marker)
    if not found or around is None:
        return None
    return FunctionProgram(program, marker=marker, files={harness.tests_file: declared + around},
                           compile=harness.compile)


def _declared(declaration: str, match: re.Match) -> str:
    """The declaration, its {entry} the name the declare regex's group `entry` matched (if it has one)."""
    entry = match.groupdict().get("entry")
    return declaration if entry is None else declaration.replace(ENTRY, entry)


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
