"""Class archives of JVM runtimes (the table's `run_class_archive`: clojure): a run maps the runtime's classes from the
archive built for it (the JVM's class-loading log says so), and its verdicts and output are those of the run without
it, also when the archive is missing, stale or unreadable, or its build failed. No timings are asserted."""

from __future__ import annotations

import dataclasses
import logging
import pathlib

import pytest

from sandboxes.backends.process.backend import ProcessBackend
from sandboxes.languages import Language, LanguageTable
from sandboxes.languages.samples import load_samples
from sandboxes.results import Limits, RunResult
from sandboxes.toolchain_artifacts import RUN_ARCHIVE
from tests.sandboxes.conftest import built, fresh_backend, ready
from tests.sandboxes.test_class_archive import SHARED, archive_replaced

LIMITS = Limits(timeout_s=10, memory_mb=512)
RUN_ARCHIVED = ("clojure",)


@pytest.fixture(scope="module", params=RUN_ARCHIVED)
def jvm_run(request: pytest.FixtureRequest, table: LanguageTable, backend: ProcessBackend) -> Language:
    language = ready(table, backend, request.param)
    assert language.run_class_archive is not None
    return language


def programs(key: str) -> dict[str, str]:
    stdin = load_samples()[key].stdin
    return {"good": stdin.good, "wrong": stdin.wrong, "crash": stdin.crash, "broken": stdin.broken}


async def run(backend: ProcessBackend, language: Language, source: str) -> RunResult:
    async with backend.workspace(language, source, 0) as workspace:
        return await workspace.run(b"1 2\n", LIMITS, None)


def logging_class_loads(language: Language) -> Language:
    """The same run, its JVM listing every class it loads and where from."""
    return dataclasses.replace(language, run=(language.run[0], "-Xlog:class+load", *language.run[1:]))


def without_archive(language: Language) -> Language:
    return dataclasses.replace(language, run_class_archive=None)


def assert_same(got: RunResult, expected: RunResult) -> None:
    assert (got.status, got.exit_code, got.stdout, got.stderr) == (
        expected.status, expected.exit_code, expected.stdout, expected.stderr)


async def built_archive(backend: ProcessBackend, language: Language) -> pathlib.Path:
    """The language's runtime archive, built first if no run has yet."""
    return await built(backend, language, RUN_ARCHIVE, lambda: run(backend, language, programs(language.key)["good"]))


@pytest.mark.asyncio
async def test_a_run_maps_the_runtimes_classes_from_the_archive(backend, jvm_run) -> None:
    source = programs(jvm_run.key)["good"]
    ran = await run(backend, logging_class_loads(jvm_run), source)
    assert ran.stdout.count(SHARED) > 1000, ran.stdout[-2000:]
    plain = await run(backend, logging_class_loads(without_archive(jvm_run)), source)
    assert all(b"3\n" in result.stdout.splitlines(True) for result in (ran, plain)), (ran, plain)
    assert SHARED not in plain.stdout


@pytest.mark.parametrize("program", ["good", "wrong", "crash", "broken"])
@pytest.mark.asyncio
async def test_verdicts_and_output_are_those_of_the_run_without_it(backend, jvm_run, program) -> None:
    source = programs(jvm_run.key)[program]
    got = await run(backend, jvm_run, source)
    assert_same(got, await run(backend, without_archive(jvm_run), source))
    assert (got.exit_code == 0) == (program in ("good", "wrong")), got


@pytest.mark.parametrize("case", ["missing", "other jvm build", "unreadable"])
@pytest.mark.asyncio
async def test_a_missing_stale_or_unreadable_archive_changes_nothing(backend, jvm_run, case) -> None:
    source = programs(jvm_run.key)["crash"]
    with archive_replaced(await built_archive(backend, jvm_run), case, None):
        got = await run(backend, jvm_run, source)
    assert_same(got, await run(backend, without_archive(jvm_run), source))


@pytest.mark.asyncio
async def test_a_failed_archive_build_is_logged_and_runs_go_on(table, caplog) -> None:
    async with fresh_backend() as fresh:
        clojure = ready(table, fresh, "clojure")
        refused = dataclasses.replace(clojure, run_class_archive="-J{}")     # java takes no -J flags
        source = programs("clojure")["good"]
        with caplog.at_level(logging.ERROR, logger="sandboxes.backends.process.artifact_builds"):
            got = await run(fresh, refused, source)
        assert "clojure: the runtime's class archive failed" in caplog.text
        assert got.stdout == b"3\n", got


@pytest.mark.parametrize("template", ["", "{}{}", "-J"])
def test_the_table_refuses_a_run_class_archive_it_cannot_use(tmp_path, template) -> None:
    table = tmp_path / "languages.toml"
    table.write_text(f'[x]\nsource_file = "x"\nrun = ["x"]\nversion = ["x"]\npackages = []\n'
                     f'run_class_archive = "{template}"\n')
    with pytest.raises(ValueError, match="flag template"):
        LanguageTable.load(table)
