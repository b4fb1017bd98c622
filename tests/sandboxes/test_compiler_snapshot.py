"""Compiler snapshots (the table's `compiler_snapshot`: tsc): a compile starts from the snapshot built for it, parses
only the program there (tsc's own trace says so), and its verdicts, diagnostics and output are tsc's, also when the
snapshot is missing, under other flags, or when its build failed. No timings are asserted."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import pathlib
import subprocess
from collections.abc import Iterator

import pytest

from sandboxes.backends.process.backend import ProcessBackend
from sandboxes.languages import Language, LanguageTable
from sandboxes.toolchain_artifacts import SNAPSHOT, build_snapshot
from tests.sandboxes.conftest import built, fresh_backend, ready
from tests.sandboxes.test_class_archive import Outcome, assert_same, compile_and_run

TYPE_ERROR = 'const x: number = "one";\nconsole.log(y);\n'
STRICT_ONLY = "function f(a) { return a; }\nconsole.log(f(3));\n"     # an implicit any: an error under --strict only
MARKER = "started from the test's snapshot"


@pytest.fixture(scope="module")
def typescript(table: LanguageTable, backend: ProcessBackend) -> Language:
    language = ready(table, backend, "typescript")
    assert language.compiler_snapshot is not None
    return language


def programs(language: Language) -> dict[str, str]:
    from sandboxes.languages.samples import load_samples

    stdin = load_samples()[language.key].stdin
    return {"good": stdin.good, "wrong": stdin.wrong, "broken": stdin.broken, "type error": TYPE_ERROR}


def without_snapshot(language: Language) -> Language:
    return dataclasses.replace(language, compiler_snapshot=None)


def with_flags(language: Language, *flags: str) -> Language:
    return dataclasses.replace(language, compile=(language.compile[0], *flags, *language.compile[1:]))


async def built_snapshot(backend: ProcessBackend, language: Language) -> pathlib.Path:
    """The language's compiler snapshot, built first if no compile has yet."""
    return await built(backend, language, SNAPSHOT,
                       lambda: compile_and_run(backend, language, programs(language)["good"]))


@contextlib.contextmanager
def snapshot_replaced(path: pathlib.Path, by: pathlib.Path | None) -> Iterator[None]:
    """The snapshot replaced by `by`, or missing (None); restored after."""
    kept = path.with_name(f"{SNAPSHOT}.kept")
    os.rename(path, kept)
    try:
        if by is not None:
            os.link(by, path)
        yield
    finally:
        path.unlink(missing_ok=True)
        os.rename(kept, path)


@pytest.mark.asyncio
async def test_a_compile_starts_from_the_snapshot(backend, typescript, tmp_path) -> None:
    script = tmp_path / "marker.js"
    script.write_text("require('v8').startupSnapshot.setDeserializeMainFunction("
                      f"() => console.log({json.dumps(MARKER)}));\n")
    subprocess.run(["node", "--snapshot-blob", "marker.blob", "--build-snapshot", script.name], cwd=tmp_path,
                   check=True, capture_output=True)
    (tmp_path / "marker.blob").chmod(0o644)
    with snapshot_replaced(await built_snapshot(backend, typescript), tmp_path / "marker.blob"):
        compiled, _ = await compile_and_run(backend, typescript, programs(typescript)["good"])
    assert compiled.stdout == f"{MARKER}\n".encode(), compiled


def parsed_files(trace_dir: pathlib.Path) -> set[str]:
    """The files a compile parsed, from the trace tsc writes with --generateTrace."""
    events = json.loads((trace_dir / "trace.json").read_text())
    return {pathlib.PurePath(event["args"]["path"]).name for event in events
            if event.get("name") == "createSourceFile" and event.get("ph") in ("B", "X")}


def test_from_the_snapshot_tsc_parses_only_the_program(typescript, tmp_path) -> None:
    """Built under the table's flags plus tsc's trace, the snapshot parses the declaration files once, there."""
    if os.geteuid() != 0:
        pytest.skip("builds as root, as the backend does")
    traced = with_flags(typescript, "--generateTrace", "trace")
    tree = tmp_path / "tree"
    tree.mkdir()
    build_snapshot(traced, tree)
    argv = [part.format(source="main.ts") for part in traced.compile]
    seen = {}
    for name, command in (("snapshot", ["node", "--snapshot-blob", str(tree / SNAPSHOT), "--", *argv[1:]]),
                          ("tsc", argv)):
        work = tmp_path / name
        work.mkdir()
        (work / "main.ts").write_text(programs(typescript)["good"])
        done = subprocess.run(command, cwd=work, capture_output=True, text=True)
        assert done.returncode == 0, done
        seen[name] = parsed_files(work / "trace")
    assert seen["snapshot"] == {"main.ts"}
    assert {"main.ts", "lib.es5.d.ts"} < seen["tsc"]


@pytest.mark.parametrize("program", ["good", "wrong", "broken", "type error"])
@pytest.mark.asyncio
async def test_verdicts_and_diagnostics_are_tscs(backend, typescript, program) -> None:
    got = await compile_and_run(backend, typescript, programs(typescript)[program])
    assert_same(got, await compile_and_run(backend, without_snapshot(typescript), programs(typescript)[program]))
    compiled, ran = got
    if program in ("broken", "type error"):
        assert compiled.status.name == "EXIT_NONZERO" and b"error TS" in compiled.stdout, compiled
    else:
        assert ran.stdout == (b"3\n" if program == "good" else b"-1\n"), ran


@pytest.mark.asyncio
async def test_other_flags_compile_as_tsc_with_them(backend, typescript) -> None:
    """The snapshot was warmed under the table's flags; a compile under others reuses nothing and is tsc's."""
    await built_snapshot(backend, typescript)
    strict = with_flags(typescript, "--strict")
    got: Outcome = await compile_and_run(backend, strict, STRICT_ONLY)
    assert b"error TS7006" in got[0].stdout, got
    assert_same(got, await compile_and_run(backend, without_snapshot(strict), STRICT_ONLY))


@pytest.mark.asyncio
async def test_a_missing_snapshot_compiles_as_tsc(backend, typescript) -> None:
    with snapshot_replaced(await built_snapshot(backend, typescript), None):
        got = await compile_and_run(backend, typescript, TYPE_ERROR)
    assert_same(got, await compile_and_run(backend, without_snapshot(typescript), TYPE_ERROR))


@pytest.mark.asyncio
async def test_a_failed_snapshot_build_is_logged_and_compiles_go_on(table, caplog) -> None:
    async with fresh_backend() as fresh:
        typescript = ready(table, fresh, "typescript")
        refused = dataclasses.replace(typescript, compiler_snapshot="../languages.toml")    # not a script
        source = programs(typescript)["good"]
        with caplog.at_level(logging.ERROR, logger="sandboxes.backends.process.artifact_builds"):
            got = await compile_and_run(fresh, refused, source)
        assert "typescript: the compiler's snapshot failed (build)" in caplog.text
        assert got[1] is not None and got[1].stdout == b"3\n", got
        assert not (fresh.artifact_builds.root / typescript.key / SNAPSHOT).exists()


@pytest.mark.parametrize(("entry", "error"), [
    ('compile = ["tsc", "{source}"]\ncompiler_snapshot = "nonexistent.js"', "not a script"),
    ('compile = ["tsc", "{source}"]\ncompiler_snapshot = "../languages.toml"', "not a script"),
    ('compiler_snapshot = "tsc.js"', "needs a compile command"),
])
def test_the_table_refuses_a_compiler_snapshot_it_cannot_use(tmp_path, entry, error) -> None:
    table = tmp_path / "languages.toml"
    table.write_text(f'[x]\nsource_file = "x"\nrun = ["x"]\nversion = ["x"]\npackages = []\n{entry}\n')
    with pytest.raises(ValueError, match=error):
        LanguageTable.load(table)
