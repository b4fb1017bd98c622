"""Class archives of JVM compilers: a compile maps the compiler's classes from the archive built for it (the JVM's
class-loading log says so), and its verdicts and diagnostics are those of the compile without it, also when the
archive is missing, stale or unreadable. No timings are asserted."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import pathlib
import shutil
from collections.abc import Iterator

import pytest

from sandboxes.backends.process.backend import ProcessBackend
from sandboxes.languages import Language, LanguageTable
from sandboxes.languages.samples import load_samples
from sandboxes.results import Limits, RunResult, RunStatus
from sandboxes.toolchain_artifacts import ARCHIVE
from tests.sandboxes.conftest import built, fresh_backend, ready

LIMITS = Limits(timeout_s=10, memory_mb=1024)
JVM_COMPILED = ("java", "kotlin", "scala")
# a compiler of another jar set: its archive records a class path that the language's compile does not have
OTHER = {"java": "kotlin", "kotlin": "scala", "scala": "kotlin"}
TYPE_ERRORS = {
    "java": 'public class Main {\n    public static void main(String[] args) { int x = "one"; }\n}\n',
    "kotlin": 'fun main() {\n    val x: Int = "one"\n}\n',
    "scala": 'object Main {\n  def main(args: Array[String]): Unit = { val x: Int = "one" }\n}\n',
}
SHARED = b"source: shared objects file (top)"
Outcome = tuple[RunResult, RunResult | None]     # the compile, and the run if it compiled


@pytest.fixture(scope="module", params=JVM_COMPILED)
def jvm(request: pytest.FixtureRequest, table: LanguageTable, backend: ProcessBackend) -> Language:
    return ready(table, backend, request.param)


def programs(key: str) -> dict[str, str]:
    stdin = load_samples()[key].stdin
    return {"good": stdin.good, "wrong": stdin.wrong, "broken": stdin.broken, "type error": TYPE_ERRORS[key]}


async def compile_and_run(backend: ProcessBackend, language: Language, source: str) -> Outcome:
    async with backend.workspace(language, source, 0) as workspace:
        compiled = await workspace.compile(None)
        if compiled.status is not RunStatus.OK:
            return compiled, None
        return compiled, await workspace.run(b"1 2\n", LIMITS, None)


def logging_class_loads(language: Language) -> Language:
    """The same compile, its JVM listing every class it loads and where from."""
    return dataclasses.replace(language, compile=(language.compile[0], "-J-Xlog:class+load", *language.compile[1:]))


def without_archive(language: Language) -> Language:
    return dataclasses.replace(language, class_archive=None)


def assert_same(got: Outcome, expected: Outcome) -> None:
    for step, want in zip(got, expected, strict=True):
        assert (step is None) == (want is None)
        if step is not None:
            assert (step.status, step.exit_code, step.stdout, step.stderr) == (
                want.status, want.exit_code, want.stdout, want.stderr)


@pytest.fixture(scope="module")
def plain_results() -> dict[tuple[str, str], Outcome]:
    """The compiles (and runs) without the archive, by language and program: the same every time."""
    return {}


async def without_it(backend: ProcessBackend, language: Language, program: str,
                     cache: dict[tuple[str, str], Outcome]) -> Outcome:
    if (language.key, program) not in cache:
        cache[language.key, program] = await compile_and_run(backend, without_archive(language),
                                                             programs(language.key)[program])
    return cache[language.key, program]


async def built_archive(backend: ProcessBackend, language: Language) -> pathlib.Path:
    """The language's compiler archive, built first if no compile has yet."""
    return await built(backend, language, ARCHIVE,
                       lambda: compile_and_run(backend, language, programs(language.key)["good"]))


@pytest.mark.asyncio
async def test_a_compile_maps_the_compilers_classes_from_the_archive(backend, jvm) -> None:
    source = programs(jvm.key)["good"]
    compiled, _ = await compile_and_run(backend, logging_class_loads(jvm), source)
    assert compiled.status is RunStatus.OK, compiled
    assert compiled.stdout.count(SHARED) > 1000, compiled.stdout[-2000:]
    plain, _ = await compile_and_run(backend, logging_class_loads(without_archive(jvm)), source)
    assert plain.status is RunStatus.OK, plain
    assert SHARED not in plain.stdout


@pytest.mark.parametrize("program", ["good", "wrong", "broken", "type error"])
@pytest.mark.asyncio
async def test_verdicts_and_diagnostics_are_those_of_the_compile_without_it(backend, jvm, program,
                                                                           plain_results) -> None:
    with_archive = await compile_and_run(backend, jvm, programs(jvm.key)[program])
    assert_same(with_archive, await without_it(backend, jvm, program, plain_results))
    compiled, ran = with_archive
    if program in ("broken", "type error"):
        assert compiled.status is RunStatus.EXIT_NONZERO and compiled.stderr, compiled
    else:
        assert ran.status is RunStatus.OK and ran.stdout == (b"3\n" if program == "good" else b"-1\n"), ran


@contextlib.contextmanager
def archive_replaced(path: pathlib.Path, case: str, other: pathlib.Path | None) -> Iterator[None]:
    """The archive missing, built by another JVM, by a compiler of other jars, or unreadable; restored after."""
    kept = path.with_name(f"{ARCHIVE}.kept")
    os.rename(path, kept)
    try:
        if case == "other jvm build":
            data = kept.read_bytes()
            assert b"OpenJDK 64-Bit" in data[:4096]
            path.write_bytes(data.replace(b"OpenJDK 64-Bit", b"OtherJDK64-Bit", 1))
        elif case == "other jars":
            os.link(other, path)
        elif case == "unreadable":
            shutil.copyfile(kept, path)
            path.chmod(0)
        yield
    finally:
        path.unlink(missing_ok=True)
        os.rename(kept, path)


@pytest.mark.parametrize("case", ["missing", "other jvm build", "other jars", "unreadable"])
@pytest.mark.asyncio
async def test_a_missing_stale_or_unreadable_archive_changes_nothing(backend, table, jvm, case, plain_results) -> None:
    other = None
    if case == "other jars":
        other = await built_archive(backend, ready(table, backend, OTHER[jvm.key]))
    with archive_replaced(await built_archive(backend, jvm), case, other):
        got = await compile_and_run(backend, jvm, programs(jvm.key)["type error"])
    assert_same(got, await without_it(backend, jvm, "type error", plain_results))


@pytest.mark.asyncio
async def test_a_failed_archive_build_is_logged_and_compiles_go_on(table, caplog) -> None:
    async with fresh_backend() as fresh:
        java = ready(table, fresh, "java")
        refused = dataclasses.replace(java, class_archive="{}")      # javac itself is given the JVM's flags
        source = programs("java")["good"]
        with caplog.at_level(logging.ERROR, logger="sandboxes.backends.process.artifact_builds"):
            got = await compile_and_run(fresh, refused, source)
        assert "java: the compiler's class archive failed" in caplog.text
        assert got[1] is not None and got[1].stdout == b"3\n", got
        assert_same(got, await compile_and_run(fresh, without_archive(java), source))


@pytest.mark.parametrize(("entry", "error"), [
    ('compile = ["javac", "{source}"]\nclass_archive = "-J"', "flag template"),
    ('compile = ["javac", "{source}"]\nclass_archive = "-J{}{}"', "flag template"),
    ('class_archive = "-J{}"', "needs a compile command"),
])
def test_the_table_refuses_a_class_archive_it_cannot_use(tmp_path, entry, error) -> None:
    table = tmp_path / "languages.toml"
    table.write_text(f'[x]\nsource_file = "x"\nrun = ["x"]\nversion = ["x"]\npackages = []\n{entry}\n')
    with pytest.raises(ValueError, match=error):
        LanguageTable.load(table)
