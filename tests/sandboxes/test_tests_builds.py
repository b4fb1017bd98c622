"""A split's tests' side is built once per problem (sandboxes/backends/process/tests_builds.py), on a real process
backend: a later workspace of the problem gets the first one's build of the tests and compiles only its program;
another problem builds its own; a tests' side that does not compile is the task's failure, never the program's."""

from __future__ import annotations

import dataclasses

import pytest

from sandboxes.backend import SplitTestsDoNotCompile
from sandboxes.backends.process.backend import ProcessBackend
from sandboxes.languages import Language, LanguageTable
from sandboxes.results import RunStatus
from sandboxes.split import PROGRAM_DIR, TESTS_DIR

# a compile that leaves what it was built from and a word of its own (a fresh one each time it runs)
NONCE = ("sh", "-c", 'test "$(cat "$0")" != broken && cp "$0" built-from && cat /proc/sys/kernel/random/uuid > nonce',
         "{source}")


def language(table: LanguageTable) -> Language:
    return dataclasses.replace(table.resolve("cpp"), compile=NONCE)


async def compiled(backend: ProcessBackend, lang: Language, program: str, tests: str) -> dict[str, str]:
    """The compile's status and what it left on each side."""
    async with backend.workspace(lang, program, 0, tests=tests) as workspace:
        result = await workspace.compile(None)
        assert result is not None and result.status is RunStatus.OK, result
        box = workspace.path / "box"
        return {side: (box / side / "built-from").read_text() + (box / side / "nonce").read_text()
                for side in (TESTS_DIR, PROGRAM_DIR)}


@pytest.mark.asyncio
async def test_a_problem_s_tests_are_built_once_and_each_program_on_its_own(backend, table) -> None:
    lang = language(table)
    first = await compiled(backend, lang, "program one", "tests of problem A")
    second = await compiled(backend, lang, "program two", "tests of problem A")
    other = await compiled(backend, lang, "program one", "tests of problem B")
    assert first[TESTS_DIR].startswith("tests of problem A") and second[TESTS_DIR] == first[TESTS_DIR]
    assert second[PROGRAM_DIR].startswith("program two") and second[PROGRAM_DIR] != first[PROGRAM_DIR]
    assert other[TESTS_DIR].startswith("tests of problem B")
    assert other[PROGRAM_DIR].startswith("program one") and other[PROGRAM_DIR] != first[PROGRAM_DIR]


@pytest.mark.asyncio
async def test_tests_that_do_not_compile_are_never_the_program_s_fault(backend, table) -> None:
    lang = language(table)
    with pytest.raises(SplitTestsDoNotCompile, match="the tests' side does not compile"):
        async with backend.workspace(lang, "program", 0, tests="broken") as workspace:
            await workspace.compile(None)
    # not kept: the next workspace of the problem tries again, and fails the same way
    with pytest.raises(SplitTestsDoNotCompile):
        async with backend.workspace(lang, "program", 0, tests="broken") as workspace:
            await workspace.compile(None)
