"""What compiles load ready-made instead of building again, read-only at /precompiled: precompiled headers (the table's
`precompile`) and the class-data archives of JVM compilers (`class_archive`).

`#include <bits/stdc++.h>` costs g++ four times the CPU of a small program's own compile; loaded precompiled it costs
about what `<iostream>` does. GCC's convention (GCC decides, and refuses a precompiled header built with other flags):
a compile that meets `#include <H>` as its first token-producing line looks for `H.gch` first in /precompiled (the
compile command's `-I/precompiled`). The directory holds `H.gch`, built from a file named as the program's that holds
exactly the prefix (so diagnostics that point into the headers read the same), and `H` itself, an `#include_next`
of the real one for a later include of H, which the precompiled header cannot serve. A compile sees the directory of
the longest prefix its source starts with, or none.

A JVM compiler spends much of a small program's compile loading and verifying its own classes (about 30% of javac's
and scalac's wall and CPU time, under a fifth of kotlinc's, which skips verification: bench/runs.py). A language with
`class_archive` has them dumped once into a HotSpot dynamic archive by a compile of its greeter sample
(-XX:ArchiveClassesAtExit), kept only if a compile with -Xshare:on (which refuses an archive it cannot map) succeeds
with it; every compile then maps it (-XX:SharedArchiveFile), the flags passed as the table says right after the
compile's program. The JVM checks the archive against its own build and class path and otherwise loads the classes
as it would have, silently (-Xlog:cds*=off mutes the one warning a changed class path prints); a class of the
compiler's own loaders is taken from it only if its bytes are unchanged. Verdicts and diagnostics stay the same.

The first compile that needs one builds it (as root, outside any sandbox: its input is the system's toolchain and
the table's command or sample); compiles that need the same meanwhile wait for that build. Built per backend
instance, in its directory: a toolchain upgrade never meets an old build. A failed build is logged, and compiles go
on without.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import pathlib
import re
import shutil
import subprocess
from collections.abc import Awaitable, Callable, Sequence

from sandboxes.languages import Language
from sandboxes.policy import BASE_ENV, FIXED_PATH, Step
from sandboxes.samples import load_samples

log = logging.getLogger(__name__)

MOUNT = "/precompiled"
FIRST_INCLUDE = re.compile(r"\s*#\s*include\s*<([^>]+)>")
ARCHIVE = "classes.jsa"
DUMP = ("-XX:ArchiveClassesAtExit={archive}",)
USE = ("-XX:SharedArchiveFile={archive}", "-Xlog:cds*=off")
VERIFY = (USE[0], "-Xshare:on")       # fails, saying why, unless the archive maps


class Precompiled:
    """The precompiled headers and class archives of one backend instance, built on first use."""

    def __init__(self, root: pathlib.Path) -> None:
        self.root = root
        self._built: dict[tuple[str, int | str], pathlib.Path | None] = {}
        self._building: dict[tuple[str, int | str], asyncio.Future[pathlib.Path | None]] = {}

    async def prepare(self, language: Language, source: str, step: Step) -> tuple[Step, pathlib.Path | None]:
        """The compile step of `source` as it runs here, and the directory it sees at MOUNT (None: none)."""
        if language.class_archive is None:
            return step, await self._headers(language, source)
        directory = await self._once((language.key, ARCHIVE), lambda: self._build_archive(language))
        if directory is None:
            return step, None
        argv = _with_jvm_flags(language, step.argv, USE, f"{MOUNT}/{ARCHIVE}")
        return dataclasses.replace(step, argv=argv), directory

    async def _headers(self, language: Language, source: str) -> pathlib.Path | None:
        """The directory for the longest of the language's prefixes that `source` starts with (built now if it is
        the first), or None: no prefix fits, or its build failed."""
        if language.precompile is None:
            return None
        prefixes = language.precompile.prefixes
        fitting = [index for index, prefix in enumerate(prefixes) if source.startswith(prefix)]
        if not fitting:
            return None
        index = max(fitting, key=lambda i: len(prefixes[i]))
        return await self._once((language.key, index), lambda: self._build(language, index))

    async def _once(self, key: tuple[str, int | str],
                    build: Callable[[], Awaitable[pathlib.Path | None]]) -> pathlib.Path | None:
        """What `build` made for `key`, building it now if nobody has (those who ask meanwhile wait for it)."""
        if key in self._built:
            return self._built[key]
        future = self._building.get(key)
        if future is None or future.get_loop() is not asyncio.get_running_loop():
            future = self._building[key] = asyncio.ensure_future(build())
            future.add_done_callback(lambda done: done.cancelled() or self._built.setdefault(key, done.result()))
        return await asyncio.shield(future)

    async def _build(self, language: Language, index: int) -> pathlib.Path | None:
        prefix = language.precompile.prefixes[index]
        first = FIRST_INCLUDE.match(prefix)
        if first is None:
            log.error("%s: precompile prefix %r does not start with #include <...>", language.key, prefix)
            return None
        header = first.group(1)
        target = self.root / language.key / str(index)
        work = target.with_name(f"{index}.building")
        shutil.rmtree(work, ignore_errors=True)
        (work / header).parent.mkdir(parents=True, exist_ok=True)
        source = work / language.source_name(prefix)
        source.write_text(prefix)
        values = {"source": source.name, "output": f"{header}.gch"}
        failure = await _run(language, [part.format_map(values) for part in language.precompile.command], work)
        if failure is not None:
            log.error("%s: precompiling %r failed: %s", language.key, prefix, failure)
            return None
        source.unlink()
        (work / header).write_text(f"#include_next <{header}>\n")
        _publish(work, target)
        log.info("%s: precompiled %r in %s", language.key, prefix, target)
        return target

    async def _build_archive(self, language: Language) -> pathlib.Path | None:
        """The directory holding the compiler's class archive: dumped by a compile of the language's greeter sample,
        kept if a compile with it under -Xshare:on succeeds."""
        sample = load_samples().get(language.key)
        if sample is None:
            log.error("%s: no greeter sample to dump the compiler's classes with", language.key)
            return None
        program = sample.greeter.program
        target = self.root / language.key / "classes"
        work = target.with_name("classes.building")
        shutil.rmtree(work, ignore_errors=True)
        scratch = work / "compile"
        scratch.mkdir(parents=True)
        (scratch / language.source_name(program)).write_text(program)
        argv = language.render(language.compile, program, language.compile_memory_mb)
        for flags in (DUMP, VERIFY):
            failure = await _run(language, _with_jvm_flags(language, argv, flags, str(work / ARCHIVE)), scratch)
            if failure is not None:
                log.error("%s: the compiler's class archive failed (%s): %s", language.key, flags[0], failure)
                return None
        shutil.rmtree(scratch)
        _publish(work, target)
        log.info("%s: the compiler's classes archived in %s", language.key, target)
        return target


def _with_jvm_flags(language: Language, argv: Sequence[str], flags: Sequence[str], archive: str) -> tuple[str, ...]:
    """The compile command with JVM flags (`{archive}` filled in) passed the table's way, right after its program."""
    return (argv[0], *(language.class_archive.format(flag.format(archive=archive)) for flag in flags), *argv[1:])


async def _run(language: Language, argv: Sequence[str], cwd: pathlib.Path) -> str | None:
    """Run a build command as root in `cwd` under the language's compile time limit; None, or why it failed (the end
    of its output)."""
    program = shutil.which(argv[0], path=FIXED_PATH) or argv[0]
    try:
        compiler = await asyncio.create_subprocess_exec(
            program, *argv[1:], cwd=cwd, env={**BASE_ENV, **language.env}, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    except OSError as e:
        return str(e)
    try:
        output, _ = await asyncio.wait_for(compiler.communicate(), language.compile_timeout_s)
    except TimeoutError:
        compiler.kill()
        await compiler.wait()
        return f"took over {language.compile_timeout_s:g} s"
    if compiler.returncode != 0:
        return f"exit {compiler.returncode}: {output.decode(errors='replace')[-1000:]}"
    return None


def _publish(work: pathlib.Path, target: pathlib.Path) -> None:
    """Make a finished build readable by every slot and put it in place."""
    for path in (work, *work.rglob("*")):
        path.chmod(0o755 if path.is_dir() else 0o644)
    work.rename(target)
