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
    with pytest.raises(SplitTestsDoNotCompile, match="the tests' side or the dispatcher's unit does not compile"):
        async with backend.workspace(lang, "program", 0, tests="broken") as workspace:
            await workspace.compile(None)
    # not kept: the next workspace of the problem tries again, and fails the same way
    with pytest.raises(SplitTestsDoNotCompile):
        async with backend.workspace(lang, "program", 0, tests="broken") as workspace:
            await workspace.compile(None)


# the dispatcher's own unit: compiled where the program's side is, leaving an object of its own word
UNIT_NONCE = ("sh", "-c", 'cp "$0" unit-from && cat /proc/sys/kernel/random/uuid > unit.o', "{source}")
# the program's compile says what it was given to link
LINKING = ("sh", "-c", 'cp "$0" built-from && echo "$@" > linked && cat /proc/sys/kernel/random/uuid > nonce',
           "{source}")


@pytest.mark.asyncio
async def test_a_problem_s_dispatcher_unit_is_built_once_and_linked_into_each_program(backend, table) -> None:
    lang = language(table)
    assert lang.split is not None and lang.split.unit is not None
    unit = dataclasses.replace(lang.split.unit, compile=UNIT_NONCE, objects=("unit.*",), link=("unit.o",))
    lang = dataclasses.replace(lang, compile=LINKING, split=dataclasses.replace(lang.split, unit=unit))
    seen = []
    for program in ("program one", "program two"):
        async with backend.workspace(lang, program, 0, files={unit.source_file: "unit of problem A"},
                                     tests="tests of problem A") as workspace:
            result = await workspace.compile(None)
            assert result is not None and result.status is RunStatus.OK, result
            side = workspace.path / "box" / PROGRAM_DIR
            seen.append({name: (side / name).read_text() for name in ("unit-from", "unit.o", "built-from", "linked")
                         if (side / name).exists()})
    first, second = seen
    assert first["unit-from"] == "unit of problem A" and "unit-from" not in second    # not compiled again: its
    assert first["unit.o"] == second["unit.o"]                                         # object, kept, is the first's
    assert (first["built-from"], second["built-from"]) == ("program one", "program two")
    assert first["linked"].split() == second["linked"].split() == ["unit.o"]
