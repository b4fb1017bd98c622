"""Toolchain artifacts (sandboxes/toolchain_artifacts.py), one contract for every kind: precompiled headers (cpp), the
class archives of JVM compilers (java, kotlin, scala), compiler snapshots (typescript) and the class archives of JVM
runtimes (clojure). A compile (or run) uses what was built for it (GCC's -H, the JVM's class-loading log, a stand-in
snapshot say so); each is built once per backend; verdicts, diagnostics and output are those without it, also when it
is missing, stale or unreadable; a failed build is logged and compiles and runs go on without; the table refuses an
entry it cannot use. No timings are asserted."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import pathlib
import shutil
import subprocess
from collections.abc import AsyncIterator, Iterator

import pytest

from sandboxes.backends.process.backend import ProcessBackend
from sandboxes.languages import Language, LanguageTable, language_from_entry
from sandboxes.languages.samples import load_samples
from sandboxes.results import Limits, RunStatus
from sandboxes.toolchain_artifacts import ARCHIVE, MOUNT, RUN_ARCHIVE, SNAPSHOT, build_snapshot
from tests.sandboxes.conftest import ready
from tests.workspaces import Outcome, assert_same, compile_and_run

LIMITS = Limits(timeout_s=10, memory_mb=1024)
STDIN = b"1 2\n"
LCB = "#include <bits/stdc++.h>\nusing namespace std;\nint main() { int a, b; cin >> a >> b; cout << a + b << endl; }\n"
MULTIPL_E = ("#include<assert.h>\n#include<bits/stdc++.h>\nlong add(long x, long y) {\n    return x + y;\n}\n"
             "int main() {\n    assert(add(2, 3) == 5);\n    assert(add(2, 3) == 6);\n}\n")
# an error inside the standard headers' templates: the diagnostics walk the include chain back to main.cpp
TEMPLATE_ERROR = "#include <bits/stdc++.h>\nstruct X { int a; };\nint main() { std::set<X> s; s.insert(X{1}); }\n"
TWICE = "#include<bits/stdc++.h>\n#include <bits/stdc++.h>\nint main() { std::vector<int> v{3}; return v[0] - 3; }\n"
CPP_PROGRAMS = {"lcb": LCB, "multipl-e": MULTIPL_E, "template error": TEMPLATE_ERROR, "twice": TWICE}
TYPE_ERRORS = {
    "java": 'public class Main {\n    public static void main(String[] args) { int x = "one"; }\n}\n',
    "kotlin": 'fun main() {\n    val x: Int = "one"\n}\n',
    "scala": 'object Main {\n  def main(args: Array[String]): Unit = { val x: Int = "one" }\n}\n',
    "typescript": 'const x: number = "one";\nconsole.log(y);\n',
}
PRINTS = {"good": b"3\n", "wrong": b"-1\n", "lcb": b"3\n", "twice": b""}   # what these print, given STDIN
COMPILE_ERRORS = ("broken", "type error", "template error")      # where the language compiles: else a run's error
SHARED = b"source: shared objects file (top)"
BUILD_LOGGERS = ("sandboxes.toolchain_artifacts", "sandboxes.backends.process.artifact_builds")   # a build, a failure
OTHER = {"java": "kotlin", "kotlin": "scala", "scala": "kotlin"}   # a compiler of other jars: an archive of another
                                                                   # class path
STRICT_ONLY = "function f(a) { return a; }\nconsole.log(f(3));\n"     # an implicit any: an error under --strict only
MARKER = "started from the test's snapshot"


@dataclasses.dataclass(frozen=True)
class Kind:
    """One kind of artifact, as the contract poses it."""

    field: str                      # the table's field that asks for it
    artifact: str                   # its path in a language's tree
    keys: tuple[str, ...]           # the table's languages that have it
    programs: tuple[str, ...]       # what is compiled and run with it and without (the first uses it)
    diagnostics: str                # where a compile error says why ("stdout" or "stderr"), and what it says
    marker: bytes
    spoilt: tuple[str, ...] = ()    # how it is spoilt in the tests of a missing or stale one (`spoilt`)
    spoilt_program: str = ""        # what compiles (or runs) with it spoilt
    broken: str | None = None       # a table value whose build fails
    failure: str = ""               # what the log says of that build

    def without(self, language: Language) -> Language:
        return dataclasses.replace(language, **{self.field: None})


HEADERS = Kind("precompiled_headers", "0/bits/stdc++.h.gch", ("cpp",), tuple(CPP_PROGRAMS), "stderr", b"error:")
CLASS_ARCHIVE = Kind("class_archive", ARCHIVE, ("java", "kotlin", "scala"), ("good", "wrong", "broken", "type error"),
                     "stderr", b"", ("missing", "other jvm build", "other jars", "unreadable"), "type error", "{}",
                     "the compiler's class archive failed")      # "{}": javac itself is given the JVM's flags
SNAPSHOT_KIND = Kind("compiler_snapshot", SNAPSHOT, ("typescript",), ("good", "wrong", "broken", "type error"),
                     "stdout", b"error TS", ("missing",), "type error", "language.toml",      # not a script
                     "the compiler's snapshot failed (build)")
RUN_CLASS_ARCHIVE = Kind("run_class_archive", RUN_ARCHIVE, ("clojure",), ("good", "wrong", "crash", "broken"),
                         "stderr", b"", ("missing", "other jvm build", "unreadable"), "crash", "-J{}",
                         "the runtime's class archive failed")   # "-J{}": java takes no -J flags
KINDS = {"header": HEADERS, "class archive": CLASS_ARCHIVE, "snapshot": SNAPSHOT_KIND,
         "run class archive": RUN_CLASS_ARCHIVE}


def cases(each: str | None = None, kinds: dict[str, Kind] = KINDS) -> list:
    """(kind, key) for every kind's every language; with `each`, (kind, key, case) for every case its kind lists in
    that attribute."""
    params = []
    for name, kind in kinds.items():
        for key in kind.keys:
            if each is None:
                params.append(pytest.param(kind, key, id=f"{name}-{key}"))
            else:
                params += [pytest.param(kind, key, case, id=f"{name}-{key}-{case}") for case in getattr(kind, each)]
    return params


def having(table: LanguageTable, backend: ProcessBackend, kind: Kind, key: str) -> Language:
    """The ready language `key`, whose table entry asks for the artifact (else the comparisons would prove nothing)."""
    language = ready(table, backend, key)
    assert getattr(language, kind.field) is not None, f"{key} has no {kind.field}"
    return language


def program(key: str, name: str) -> str:
    """The program `name` (a Kind's `programs`) in the language `key`."""
    if name in CPP_PROGRAMS:
        return CPP_PROGRAMS[name]
    if name == "type error":
        return TYPE_ERRORS[key]
    return getattr(load_samples()[key].stdin, name)


def assert_as_expected(kind: Kind, name: str, outcome: Outcome) -> None:
    """The program `name` came out as it does, with the artifact or without: a compile error with its diagnostics,
    the output it prints, or a run that fails."""
    compiled, ran = outcome
    if name in COMPILE_ERRORS and compiled is not None:
        said = getattr(compiled, kind.diagnostics)
        assert compiled.status is RunStatus.EXIT_NONZERO and said and kind.marker in said, compiled
    elif name in PRINTS:
        assert ran is not None and (ran.status, ran.stdout) == (RunStatus.OK, PRINTS[name]), outcome
    else:
        assert ran is not None and ran.exit_code != 0, outcome


def jvm_flags(language: Language, step: str, *flags: str) -> Language:
    """The language with its JVM given `flags` first in its `step` ("compile": through the compiler, as -J; "run")."""
    command = getattr(language, step)
    passed = [f"-J{flag}" for flag in flags] if step == "compile" else list(flags)
    return dataclasses.replace(language, **{step: (command[0], *passed, *command[1:])})


def showing_includes(cpp: Language) -> Language:
    """The same compile, asking GCC which headers it read (`! NAME.gch` for a precompiled one)."""
    return dataclasses.replace(cpp, compile=(*cpp.compile[:-1], "-H", cpp.compile[-1]))


def with_flags(language: Language, *flags: str) -> Language:
    """The same compile with `flags` after its program."""
    return dataclasses.replace(language, compile=(language.compile[0], *flags, *language.compile[1:]))


@contextlib.asynccontextmanager
async def fresh_backend() -> AsyncIterator[ProcessBackend]:
    """A process backend of one slot that nothing has compiled with yet (its builds start from scratch)."""
    if os.geteuid() != 0:
        pytest.skip("the process backend needs root")
    backend = ProcessBackend()
    await backend.start(1)
    try:
        yield backend
    finally:
        await backend.close()


async def built(backend: ProcessBackend, kind: Kind, language: Language) -> pathlib.Path:
    """The language's artifact of `kind` in the backend's build directory, built first by the compile and run of its
    first program if nothing has used it yet."""
    path = backend.artifact_builds.root / language.key / kind.artifact
    if not path.exists():
        await compile_and_run(backend, language, program(language.key, kind.programs[0]), LIMITS, STDIN)
    assert path.is_file(), f"no {language.key} {kind.artifact} at {path}"
    return path


@contextlib.contextmanager
def spoilt(path: pathlib.Path, case: str, by: pathlib.Path | None = None) -> Iterator[None]:
    """The artifact at `path` missing, built by another JVM, replaced by `by` (another one), or unreadable; restored
    after."""
    kept = path.with_name(f"{path.name}.kept")
    os.rename(path, kept)
    try:
        if case == "other jvm build":
            data = kept.read_bytes()
            assert b"OpenJDK 64-Bit" in data[:4096]
            path.write_bytes(data.replace(b"OpenJDK 64-Bit", b"OtherJDK64-Bit", 1))
        elif by is not None:
            os.link(by, path)
        elif case == "unreadable":
            shutil.copyfile(kept, path)
            path.chmod(0)
        yield
    finally:
        path.unlink(missing_ok=True)
        os.rename(kept, path)


@pytest.fixture(scope="module")
def plain_outcomes() -> dict[tuple[str, str, str], Outcome]:
    """The compiles and runs without the artifact, by field, language and program: the same every time."""
    return {}


async def without_it(backend: ProcessBackend, kind: Kind, language: Language, name: str,
                     cache: dict[tuple[str, str, str], Outcome]) -> Outcome:
    if (kind.field, language.key, name) not in cache:
        cache[kind.field, language.key, name] = await compile_and_run(
            backend, kind.without(language), program(language.key, name), LIMITS, STDIN)
    return cache[kind.field, language.key, name]


# --- the contract, every kind ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("kind", "key"), cases())
@pytest.mark.asyncio
async def test_it_is_built_once(backend, table, kind, key, caplog) -> None:
    """Later compiles and runs use the one build: none starts again (a build logs, and publishes a new file)."""
    language = having(table, backend, kind, key)
    path = await built(backend, kind, language)
    first = path.stat()
    with caplog.at_level(logging.INFO):
        await compile_and_run(backend, language, program(key, kind.programs[0]), LIMITS, STDIN)
    assert [record.getMessage() for record in caplog.records if record.name in BUILD_LOGGERS] == []
    assert (path.stat().st_ino, path.stat().st_mtime_ns) == (first.st_ino, first.st_mtime_ns)


@pytest.mark.parametrize(("kind", "key", "name"), cases(each="programs"))
@pytest.mark.asyncio
async def test_verdicts_diagnostics_and_output_are_those_without_it(backend, table, kind, key, name,
                                                                    plain_outcomes) -> None:
    language = having(table, backend, kind, key)
    got = await compile_and_run(backend, language, program(key, name), LIMITS, STDIN)
    assert_same(got, await without_it(backend, kind, language, name, plain_outcomes))
    assert_as_expected(kind, name, got)


@pytest.mark.parametrize(("kind", "key", "case"), cases(each="spoilt"))
@pytest.mark.asyncio
async def test_a_missing_stale_or_unreadable_one_changes_nothing(backend, table, kind, key, case,
                                                                 plain_outcomes) -> None:
    language = having(table, backend, kind, key)
    other = await built(backend, kind, ready(table, backend, OTHER[key])) if case == "other jars" else None
    with spoilt(await built(backend, kind, language), case, other):
        got = await compile_and_run(backend, language, program(key, kind.spoilt_program), LIMITS, STDIN)
    assert_same(got, await without_it(backend, kind, language, kind.spoilt_program, plain_outcomes))


@pytest.mark.parametrize("kind", [pytest.param(kind, id=name) for name, kind in KINDS.items() if kind.broken])
@pytest.mark.asyncio
async def test_a_failed_build_is_logged_and_compiles_and_runs_go_on(table, caplog, kind) -> None:
    async with fresh_backend() as fresh:
        language = having(table, fresh, kind, kind.keys[0])
        refused = dataclasses.replace(language, **{kind.field: kind.broken})
        source = program(language.key, "good")
        with caplog.at_level(logging.ERROR, logger=BUILD_LOGGERS[1]):
            got = await compile_and_run(fresh, refused, source, LIMITS, STDIN)
        assert f"{language.key}: {kind.failure}" in caplog.text
        assert got[1] is not None and got[1].stdout == b"3\n", got
        assert_same(got, await compile_and_run(fresh, kind.without(language), source, LIMITS, STDIN))
        assert not (fresh.artifact_builds.root / language.key / kind.artifact).exists()


@pytest.mark.parametrize(("field", "value", "compiles", "error"), [
    pytest.param(field, value, compiles, error, id=f"{field}={value!r}{'' if compiles else ', no compile'}")
    for field, value, compiles, error in [
        ("class_archive", "-J", True, "flag template"),
        ("class_archive", "-J{}{}", True, "flag template"),
        ("class_archive", "-J{}", False, "needs a compile command"),
        ("compiler_snapshot", "../languages.toml", True, "not a file name"),
        ("compiler_snapshot", "tsc.js", False, "needs a compile command"),
        ("run_class_archive", "", False, "flag template"),
        ("run_class_archive", "{}{}", False, "flag template"),
        ("run_class_archive", "-J", False, "flag template"),
    ]])
def test_the_table_refuses_an_entry_it_cannot_use(field, value, compiles, error) -> None:
    entry = {"source_file": "x", "run": ["x"], "version": ["x"], "packages": [], field: value,
             **({"compile": ["x", "{source}"]} if compiles else {})}
    with pytest.raises(ValueError, match=error):
        language_from_entry("x", entry)


# --- what says each kind is used -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("source", "header"), [(LCB, "0/bits/stdc++.h.gch"), (MULTIPL_E, "2/assert.h.gch")])
@pytest.mark.asyncio
async def test_a_compile_starting_with_a_prefix_loads_its_header(backend, table, source, header) -> None:
    cpp = showing_includes(having(table, backend, HEADERS, "cpp"))
    compiled, _ = await compile_and_run(backend, cpp, source, LIMITS)
    assert compiled.status is RunStatus.OK, compiled
    assert f"! {MOUNT}/{header}\n".encode() in compiled.stderr, compiled.stderr[:2000]


@pytest.mark.asyncio
async def test_a_compile_starting_otherwise_loads_none(backend, table) -> None:
    cpp = showing_includes(ready(table, backend, "cpp"))
    compiled, _ = await compile_and_run(backend, cpp, "// a comment first\n" + LCB, LIMITS)
    assert compiled.status is RunStatus.OK, compiled
    assert b".gch" not in compiled.stderr


@pytest.mark.parametrize(("kind", "key"), cases(kinds={"class archive": CLASS_ARCHIVE,
                                                       "run class archive": RUN_CLASS_ARCHIVE}))
@pytest.mark.asyncio
async def test_a_jvm_maps_its_classes_from_the_archive(backend, table, kind, key) -> None:
    """The compiler's classes in a compile, the runtime's in a run: the JVM's class-loading log says where from."""
    language = having(table, backend, kind, key)
    step = "compile" if kind is CLASS_ARCHIVE else "run"
    logged = {}
    for name, variant in (("with", language), ("without", kind.without(language))):
        compiled, ran = await compile_and_run(backend, jvm_flags(variant, step, "-Xlog:class+load"),
                                              program(key, "good"), LIMITS, STDIN)
        assert compiled is None or compiled.status is RunStatus.OK, compiled
        assert ran is not None and b"3\n" in ran.stdout.splitlines(True), ran
        logged[name] = (compiled if step == "compile" else ran).stdout
    assert logged["with"].count(SHARED) > 1000, logged["with"][-2000:]
    assert SHARED not in logged["without"]


@pytest.mark.asyncio
async def test_a_compile_starts_from_the_snapshot(backend, table, tmp_path) -> None:
    typescript = having(table, backend, SNAPSHOT_KIND, "typescript")
    script = tmp_path / "marker.js"
    script.write_text("require('v8').startupSnapshot.setDeserializeMainFunction("
                      f"() => console.log({json.dumps(MARKER)}));\n")
    subprocess.run(["node", "--snapshot-blob", "marker.blob", "--build-snapshot", script.name], cwd=tmp_path,
                   check=True, capture_output=True)
    (tmp_path / "marker.blob").chmod(0o644)
    with spoilt(await built(backend, SNAPSHOT_KIND, typescript), "replaced", tmp_path / "marker.blob"):
        compiled, _ = await compile_and_run(backend, typescript, program("typescript", "good"), LIMITS, STDIN)
    assert compiled.stdout == f"{MARKER}\n".encode(), compiled


def parsed_files(trace_dir: pathlib.Path) -> set[str]:
    """The files a compile parsed, from the trace tsc writes with --generateTrace."""
    events = json.loads((trace_dir / "trace.json").read_text())
    return {pathlib.PurePath(event["args"]["path"]).name for event in events
            if event.get("name") == "createSourceFile" and event.get("ph") in ("B", "X")}


def test_from_the_snapshot_tsc_parses_only_the_program(backend, table, tmp_path) -> None:
    """Built under the table's flags plus tsc's trace, the snapshot parses the declaration files once, there."""
    if os.geteuid() != 0:
        pytest.skip("builds as root, as the backend does")
    traced = with_flags(having(table, backend, SNAPSHOT_KIND, "typescript"), "--generateTrace", "trace")
    tree = tmp_path / "tree"
    tree.mkdir()
    build_snapshot(traced, tree)
    argv = [part.format(source="main.ts") for part in traced.compile]
    seen = {}
    for name, command in (("snapshot", ["node", "--snapshot-blob", str(tree / SNAPSHOT), "--", *argv[1:]]),
                          ("tsc", argv)):
        work = tmp_path / name
        work.mkdir()
        (work / "main.ts").write_text(program("typescript", "good"))
        done = subprocess.run(command, cwd=work, capture_output=True, text=True)
        assert done.returncode == 0, done
        seen[name] = parsed_files(work / "trace")
    assert seen["snapshot"] == {"main.ts"}
    assert {"main.ts", "lib.es5.d.ts"} < seen["tsc"]


@pytest.mark.asyncio
async def test_other_flags_compile_as_tsc_with_them(backend, table) -> None:
    """The snapshot was warmed under the table's flags; a compile under others reuses nothing and is tsc's."""
    typescript = having(table, backend, SNAPSHOT_KIND, "typescript")
    await built(backend, SNAPSHOT_KIND, typescript)
    strict = with_flags(typescript, "--strict")
    got = await compile_and_run(backend, strict, STRICT_ONLY, LIMITS)
    assert b"error TS7006" in got[0].stdout, got
    assert_same(got, await compile_and_run(backend, SNAPSHOT_KIND.without(strict), STRICT_ONLY, LIMITS))
