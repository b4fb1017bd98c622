"""Toolchain artifacts: what compiles and runs load ready-made instead of building again: precompiled headers (the
table's `precompiled_headers`), the class-data archives of JVM compilers (`class_archive`) and of JVM runtimes
(`run_class_archive`), and startup snapshots of Node compilers (`compiler_snapshot`).
The rules live here once, for both backends: each language has one tree of them, read-only at MOUNT in its every
compile, which the process backend builds on first use and binds there (backends/process/artifact_builds.py) and a
docker image builds there when it is built (backends/docker/bake_artifacts.py); either way a compile runs the same
argv (`using`) over the same files. Standard library only: the images carry this module.

`#include <bits/stdc++.h>` costs g++ four times the CPU of a small program's own compile; loaded precompiled it costs
about what `<iostream>` does. GCC's convention (GCC decides, and refuses a precompiled header built with other flags):
a compile that meets `#include <H>` as its first token-producing line looks for `H.gch` first in each include
directory. The tree holds a directory per prefix, named by its index in the table: `H.gch`, built with the prefix's
`command` from a file named as the program's that holds exactly the prefix (so diagnostics that point into the
headers read the same), and `H` itself, an `#include_next` of the real one for a later include of H, which the
precompiled header cannot serve. A compile gets the directory of the longest prefix its source starts with first on
its include path (`-I`, right after the compiler; a compile script's argument, which it passes on), or none.

A JVM compiler spends much of a small program's compile loading and verifying its own classes (about 30% of javac's
and scalac's wall and CPU time, under a fifth of kotlinc's, which skips verification: bench/runs.py). A language with
`class_archive` has them dumped into a HotSpot dynamic archive (ARCHIVE in the tree) by a compile of its greeter
sample (-XX:ArchiveClassesAtExit), kept only if a compile with -Xshare:on (which refuses an archive it cannot map)
succeeds with it; every compile then maps it (-XX:SharedArchiveFile), the flags passed as the table says right after
the compile's program. The JVM checks the archive against its own build and class path and otherwise loads the
classes as it would have, silently (-Xlog:cds*=off mutes the one warning a changed class path prints); a class of the
compiler's own loaders is taken from it only if its bytes are unchanged. Verdicts and diagnostics stay the same.
A language with `run_class_archive` gets the same for its runs (RUN_ARCHIVE), dumped by a run of the greeter sample
(compiled first if the language compiles): a Clojure run spends about a quarter of its CPU loading the runtime's
classes. Its class path must hold jars only (the JVM archives no class of a directory), so the run command names its
jars and no program directory.

A Node compiler (tsc) spends about three quarters of a small program's compile parsing and binding the same
declaration files (the default library, --types). A language with `compiler_snapshot` names a script in snapshots/
here that loads the compiler and compiles the greeter sample once with the compile's own flags, and Node saves the
heap that leaves as a V8 startup snapshot (SNAPSHOT in the tree: `node --build-snapshot`), kept only if a compile of
the sample from it succeeds; a compile then starts from it (`node --snapshot-blob`) and reuses a declaration file's
tree only for the same file, text and flags (the script says how), so output, diagnostics and exit status stay the
compiler's. Node refuses to start from a missing snapshot rather than ignore it, so the compile goes through a shell
line that runs the compiler as the table says when the tree has none (an image built before it).

Everything is built as root from the toolchain and the table's command or sample alone and published readable by
all, writable by root only; a compile's argv names nothing but MOUNT's absolute paths, never the workdir or /tmp that
programs write (a docker container's tmpfs serves one candidate after another).
"""

from __future__ import annotations

import dataclasses
import logging
import pathlib
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence

from sandboxes.languages import LANGUAGES_DIR, SCRIPT, Language
from sandboxes.languages.samples import SAMPLES_FILE, load_samples
from sandboxes.policy import Step, compile_step, run_step
from sandboxes.results import Limits

log = logging.getLogger(__name__)

MOUNT = "/toolchain-artifacts"
ARCHIVE = "classes.jsa"
RUN_ARCHIVE = "run-classes.jsa"
SNAPSHOT = "compiler.blob"
GREETER_INPUT = b"world\n"          # what a run of the greeter sample reads (it prints "hello world")
Stage = tuple[str, Sequence[str], Step, bytes]   # a build's step: its name in errors, argv, the step it runs as, stdin
FROM_SNAPSHOT = 'test -r {blob} && exec node --snapshot-blob {blob} -- "$@"; exec "$0" "$@"'   # sh -c, argv after
FIRST_INCLUDE = re.compile(r"\s*#\s*include\s*<([^>]+)>")
DUMP = ("-XX:ArchiveClassesAtExit={archive}",)
USE = ("-XX:SharedArchiveFile={archive}", "-Xlog:cds*=off")
VERIFY = (USE[0], "-Xshare:on")       # fails, saying why, unless the archive maps


class BuildError(RuntimeError):
    """A precompiled header, class archive or snapshot could not be built (the message says which, and why)."""


def fitting_prefix(language: Language, source: str) -> int | None:
    """The index of the longest of the language's prefixes that `source` starts with; None: none fits."""
    prefixes = language.precompiled_headers.prefixes if language.precompiled_headers is not None else ()
    fitting = [index for index, prefix in enumerate(prefixes) if source.startswith(prefix)]
    return max(fitting, key=lambda index: len(prefixes[index]), default=None)


def compile_uses(language: Language, source: str) -> list[int | str]:
    """What of the language's tree a compile of `source` uses, each as the name `build` takes: the directory of the
    longest prefix it starts with, the compiler's class archive, the compiler's snapshot."""
    index = fitting_prefix(language, source)
    return [*([index] if index is not None else []), *([ARCHIVE] if language.class_archive is not None else []),
            *([SNAPSHOT] if language.compiler_snapshot is not None else [])]


def run_uses(language: Language) -> list[str]:
    """What of the language's tree a run uses: the runtime's class archive."""
    return [RUN_ARCHIVE] if language.run_class_archive is not None else []


def using(language: Language, source: str, step: Step, failed: frozenset[str] = frozenset()) -> Step:
    """The compile step of `source` as it runs with the language's tree at MOUNT (`compile_uses`, less what `failed`
    names, ARCHIVE or SNAPSHOT: its build failed, compile without): the directory of its fitting prefix first on the
    include path, the class archive mapped, the compiler started from its snapshot."""
    argv = step.argv
    for name in compile_uses(language, source):
        if name == ARCHIVE and name not in failed:
            argv = _with_jvm_flags(language.class_archive, argv, USE, f"{MOUNT}/{ARCHIVE}")
        elif name == SNAPSHOT and name not in failed:
            argv = _from_snapshot(argv, f"{MOUNT}/{SNAPSHOT}")
        elif isinstance(name, int):
            argv = _with_compiler_flags(argv, (f"-I{MOUNT}/{name}",))
    return dataclasses.replace(step, argv=argv)


def running(language: Language, step: Step, failed: frozenset[str] = frozenset()) -> Step:
    """A run step as it runs with the language's tree at MOUNT (`run_uses`, less RUN_ARCHIVE if `failed` names it:
    its build failed, run without): the runtime's class archive mapped."""
    if RUN_ARCHIVE not in run_uses(language) or RUN_ARCHIVE in failed:
        return step
    return dataclasses.replace(step, argv=_with_jvm_flags(language.run_class_archive, step.argv, USE,
                                                          f"{MOUNT}/{RUN_ARCHIVE}"))


def artifacts(language: Language) -> list[int | str]:
    """What the language's tree may hold, each as the name `build` takes: its prefixes' directories (by index), its
    compiler's class archive, its compiler snapshot, its runtime's class archive."""
    prefixes = language.precompiled_headers.prefixes if language.precompiled_headers is not None else ()
    return [*range(len(prefixes)), *([ARCHIVE] if language.class_archive is not None else []),
            *([SNAPSHOT] if language.compiler_snapshot is not None else []), *run_uses(language)]


def inputs(language: Language) -> list[pathlib.Path]:
    """The project's files, beyond its modules, that building the language's tree reads: the samples file whose
    greeter the archives and the snapshot are built from, and the snapshot's script."""
    from_greeter = {ARCHIVE, SNAPSHOT, RUN_ARCHIVE} & set(artifacts(language))
    folder = LANGUAGES_DIR / language.key
    return [*([folder / SAMPLES_FILE] if from_greeter else []),
            *([folder / language.compiler_snapshot] if language.compiler_snapshot is not None else [])]


def build(language: Language, name: int | str, tree: pathlib.Path) -> None:
    """Build what `name` (one of `artifacts`) names into `tree`."""
    if name == ARCHIVE:
        build_archive(language, tree)
    elif name == RUN_ARCHIVE:
        build_run_archive(language, tree)
    elif name == SNAPSHOT:
        build_snapshot(language, tree)
    else:
        build_header(language, name, tree)


def build_header(language: Language, index: int, tree: pathlib.Path) -> None:
    """Build the directory of the language's prefix `index` into `tree`."""
    prefix = language.precompiled_headers.prefixes[index]
    first = FIRST_INCLUDE.match(prefix)
    if first is None:
        raise BuildError(f"{language.key}: precompiled header prefix {prefix!r} does not start with #include <...>")
    header = first.group(1)
    with tempfile.TemporaryDirectory(dir=tree.parent, prefix=f".{tree.name}-") as scratch:
        work = pathlib.Path(scratch, str(index))
        (work / header).parent.mkdir(parents=True)
        source = work / language.source_name(prefix)
        source.write_text(prefix)
        values = {"source": source.name, "output": f"{header}.gch"}
        failure = _run([part.format_map(values) for part in language.precompiled_headers.command], work,
                       compile_step(language, prefix), b"")
        if failure is not None:
            raise BuildError(f"{language.key}: precompiling {prefix!r} failed: {failure}")
        source.unlink()
        (work / header).write_text(f"#include_next <{header}>\n")
        _publish(work, tree / str(index))
    log.info("%s: precompiled %r in %s", language.key, prefix, tree / str(index))


def build_archive(language: Language, tree: pathlib.Path) -> None:
    """Dump the compiler's classes into `tree`/ARCHIVE by a compile of the language's greeter sample, kept only if a
    compile with it under -Xshare:on succeeds."""
    _build_from_greeter(language, tree, ARCHIVE, "the compiler's class archive", lambda program, archive: _dumped(
        language.class_archive, compile_step(language, program), archive, b""))


def build_run_archive(language: Language, tree: pathlib.Path) -> None:
    """Dump the runtime's classes into `tree`/RUN_ARCHIVE by a run of the language's greeter sample (compiled first if
    the language compiles), kept only if a run with it under -Xshare:on succeeds."""

    def stages(program: str, archive: str) -> list[Stage]:
        compiling = compile_step(language, program)
        run = run_step(language, program, Limits(timeout_s=language.timeout_s, memory_mb=language.memory_mb))
        return [*([("compile", compiling.argv, compiling, b"")] if compiling is not None else []),
                *_dumped(language.run_class_archive, run, archive, GREETER_INPUT)]

    _build_from_greeter(language, tree, RUN_ARCHIVE, "the runtime's class archive", stages)


def build_snapshot(language: Language, tree: pathlib.Path) -> None:
    """Save the compiler, warmed by a compile of the language's greeter sample, as a startup snapshot in
    `tree`/SNAPSHOT, kept only if a compile of the sample from it succeeds."""

    def stages(program: str, snapshot: str) -> list[Stage]:
        step = compile_step(language, program)
        compiler = shutil.which(step.argv[0], path=step.env.get("PATH"))
        if compiler is None:
            raise BuildError(f"{language.key}: no {step.argv[0]} to snapshot")
        script = LANGUAGES_DIR / language.key / language.compiler_snapshot
        return [("build", ("node", "--snapshot-blob", snapshot, "--build-snapshot", str(script), compiler,
                           *step.argv[1:]), step, b""),
                ("check", _from_snapshot(step.argv, snapshot), step, b"")]

    _build_from_greeter(language, tree, SNAPSHOT, "the compiler's snapshot", stages)


def _dumped(template: str, step: Step, archive: str, stdin: bytes) -> list[Stage]:
    """The step's JVM dumping its classes into `archive`, then running with them under -Xshare:on."""
    return [(flags[0], _with_jvm_flags(template, step.argv, flags, archive), step, stdin) for flags in (DUMP, VERIFY)]


def _build_from_greeter(language: Language, tree: pathlib.Path, name: str, what: str,
                        stages: Callable[[str, str], list[Stage]]) -> None:
    """Build `name` (`what`) into `tree`: `stages(program, output)` run in turn, in one scratch directory holding the
    language's greeter sample, and make `output` there; each must succeed."""
    program = _greeter(language)
    with tempfile.TemporaryDirectory(dir=tree.parent, prefix=f".{tree.name}-") as scratch:
        output = pathlib.Path(scratch, name)
        work = pathlib.Path(scratch, "work")
        work.mkdir()
        (work / language.source_name(program)).write_text(program)
        for label, argv, step, stdin in stages(program, str(output)):
            failure = _run(argv, work, step, stdin)
            if failure is not None:
                raise BuildError(f"{language.key}: {what} failed ({label}): {failure}")
        _publish(output, tree / name)
    log.info("%s: %s built in %s", language.key, what, tree / name)


def _greeter(language: Language) -> str:
    """The language's greeter sample: what a class archive or snapshot is built from."""
    sample = load_samples().get(language.key)
    if sample is None:
        raise BuildError(f"{language.key}: no greeter sample to build from")
    return sample.greeter.program


def _from_snapshot(argv: Sequence[str], snapshot: str) -> tuple[str, ...]:
    """The compile command started from the snapshot at `snapshot` if it is there, else as it is."""
    return ("sh", "-c", FROM_SNAPSHOT.format(blob=snapshot), *argv)


def _with_compiler_flags(argv: Sequence[str], flags: Sequence[str]) -> tuple[str, ...]:
    """The compile with `flags` first among its compiler's: right after the compiler, or a compile script's arguments
    (after its source), which it passes on to each compile ("$@")."""
    if tuple(argv[:len(SCRIPT)]) == SCRIPT:
        return (*argv, *flags)
    return (argv[0], *flags, *argv[1:])


def _with_jvm_flags(template: str, argv: Sequence[str], flags: Sequence[str], archive: str) -> tuple[str, ...]:
    """The command with JVM flags (`{archive}` filled in) passed the table's way (`template`), right after its
    program, or a compile script's arguments (after its source), which it passes on to its compiler ("$@")."""
    passed = tuple(template.format(flag.format(archive=archive)) for flag in flags)
    if tuple(argv[:len(SCRIPT)]) == SCRIPT:
        return (*argv, *passed)
    return (argv[0], *passed, *argv[1:])


def _run(argv: Sequence[str], cwd: pathlib.Path, compiling: Step, stdin: bytes) -> str | None:
    """Run a build command in `cwd` with the step's environment and wall-clock limit; None, or why it failed (the end
    of its output)."""
    try:
        done = subprocess.run(argv, cwd=cwd, env=dict(compiling.env), input=stdin, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=compiling.wall_s)
    except OSError as e:
        return str(e)
    except subprocess.TimeoutExpired:
        return f"took over {compiling.wall_s:g} s"
    if done.returncode != 0:
        return f"exit {done.returncode}: {done.stdout.decode(errors='replace')[-1000:]}"
    return None


def _publish(built: pathlib.Path, target: pathlib.Path) -> None:
    """Make a finished build readable by all, writable by its owner (root) alone, and put it in place."""
    for path in (built, *built.rglob("*")):
        path.chmod(0o755 if path.is_dir() else 0o644)
    built.rename(target)
