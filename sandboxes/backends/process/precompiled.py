"""Precompiled headers: each of a language's `precompile` prefixes compiled once, read-only in every compile that
starts with it.

`#include <bits/stdc++.h>` costs g++ four times the CPU of a small program's own compile; loaded precompiled it costs
about what `<iostream>` does. GCC's convention (GCC decides, and refuses a precompiled header built with other flags):
a compile that meets `#include <H>` as its first token-producing line looks for `H.gch` first in /precompiled (the
compile command's `-I/precompiled`). The directory holds `H.gch`, built from a file named as the program's that holds
exactly the prefix (so diagnostics that point into the headers read the same), and `H` itself, an `#include_next`
of the real one for a later include of H, which the precompiled header cannot serve. A compile sees the directory of
the longest prefix its source starts with, or none.

The first compile that needs one builds it (as root, outside any sandbox: its input is the system's headers and
the table's command); compiles of the same prefix meanwhile wait for that build. Built per backend instance, in its
directory: a toolchain upgrade never meets an old build.
"""

from __future__ import annotations

import asyncio
import logging
import pathlib
import re
import shutil
import subprocess

from sandboxes.languages import Language
from sandboxes.policy import BASE_ENV, FIXED_PATH

log = logging.getLogger(__name__)

MOUNT = "/precompiled"
FIRST_INCLUDE = re.compile(r"\s*#\s*include\s*<([^>]+)>")


class Precompiled:
    """The precompiled-header directories of one backend instance, built on first use."""

    def __init__(self, root: pathlib.Path) -> None:
        self.root = root
        self._built: dict[tuple[str, int], pathlib.Path | None] = {}
        self._building: dict[tuple[str, int], asyncio.Future[pathlib.Path | None]] = {}

    async def directory(self, language: Language, source: str) -> pathlib.Path | None:
        """The directory for the longest of the language's prefixes that `source` starts with (built now if it is
        the first), or None: no prefix fits, or its build failed."""
        if language.precompile is None:
            return None
        prefixes = language.precompile.prefixes
        fitting = [index for index, prefix in enumerate(prefixes) if source.startswith(prefix)]
        if not fitting:
            return None
        key = (language.key, max(fitting, key=lambda i: len(prefixes[i])))
        if key in self._built:
            return self._built[key]
        build = self._building.get(key)
        if build is None or build.get_loop() is not asyncio.get_running_loop():
            build = self._building[key] = asyncio.ensure_future(self._build(language, key[1]))
            build.add_done_callback(lambda done: done.cancelled() or self._built.setdefault(key, done.result()))
        return await asyncio.shield(build)

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
        argv = [part.format_map(values) for part in language.precompile.command]
        argv[0] = shutil.which(argv[0], path=FIXED_PATH) or argv[0]
        try:
            compiler = await asyncio.create_subprocess_exec(
                *argv, cwd=work, env={**BASE_ENV, **language.env}, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        except OSError as e:
            log.error("%s: cannot precompile %r: %s", language.key, prefix, e)
            return None
        try:
            _, err = await asyncio.wait_for(compiler.communicate(), language.compile_timeout_s)
        except TimeoutError:
            compiler.kill()
            await compiler.wait()
            log.error("%s: precompiling %r took over %g s", language.key, prefix, language.compile_timeout_s)
            return None
        if compiler.returncode != 0:
            log.error("%s: precompiling %r failed: %s", language.key, prefix, err.decode(errors="replace")[-1000:])
            return None
        source.unlink()
        (work / header).write_text(f"#include_next <{header}>\n")
        for path in (work, *work.rglob("*")):
            path.chmod(0o755 if path.is_dir() else 0o644)
        work.rename(target)
        log.info("%s: precompiled %r in %s", language.key, prefix, target)
        return target
