"""The process backend's toolchain artifacts, built on first use: precompiled headers, class archives and compiler
snapshots (sandboxes/toolchain_artifacts.py says what they are and how they are built): each language's tree lives in
this backend instance's directory, bound read-only at MOUNT in every compile of the language, and in every run of a
language whose runs map an archive.

The first compile (or run) that needs one builds it (as root, outside any sandbox, in a thread); compiles that
need the same meanwhile wait for that build. Built per backend instance: a toolchain upgrade never meets an old build.
A failed build is logged, and compiles go on without (a JVM compile then without the archive's flags).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import pathlib
from collections.abc import Callable

from sandboxes.languages import Language
from sandboxes.policy import Step
from sandboxes.toolchain_artifacts import BuildError, build, compile_uses, run_uses, running, using

log = logging.getLogger(__name__)


class ArtifactBuilds:
    """The toolchain artifacts of one backend instance, built on first use."""

    def __init__(self, root: pathlib.Path) -> None:
        self.root = root
        self._built: dict[tuple[str, int | str], bool] = {}
        self._building: dict[tuple[str, int | str], asyncio.Future[bool]] = {}

    async def prepare(self, language: Language, source: str, step: Step) -> tuple[Step, pathlib.Path | None]:
        """The compile step of `source` as it runs here, and the language's tree to bind at MOUNT (None: it has
        none)."""
        failed, tree = await self._tree(language, compile_uses(language, source))
        return using(language, source, step, failed), tree

    async def prepare_run(self, language: Language, step: Step) -> tuple[Step, pathlib.Path | None]:
        """A run step as it runs here, and the language's tree to bind at MOUNT (None: its runs need none)."""
        failed, tree = await self._tree(language, run_uses(language))
        return running(language, step, failed), tree

    async def _tree(self, language: Language, needed: list[int | str]) -> tuple[frozenset[str], pathlib.Path | None]:
        """The language's tree with `needed` in it (each built now if it is the first to be needed), and those whose
        build failed."""
        if not needed:
            return frozenset(), None
        tree = self.root / language.key
        if not tree.is_dir():
            tree.mkdir()
            tree.chmod(0o755)
        failed = frozenset([name for name in needed if not await self._once(
            (language.key, name), functools.partial(build, language, name, tree))])
        return failed, tree

    async def _once(self, key: tuple[str, int | str], build: Callable[[], None]) -> bool:
        """Whether `build` made what `key` names, building it now if nobody has (those who ask meanwhile wait)."""
        if key in self._built:
            return self._built[key]
        future = self._building.get(key)
        if future is None or future.get_loop() is not asyncio.get_running_loop():
            future = self._building[key] = asyncio.ensure_future(_attempt(build))
            future.add_done_callback(lambda done: done.cancelled() or self._built.setdefault(key, done.result()))
        return await asyncio.shield(future)


async def _attempt(build: Callable[[], None]) -> bool:
    try:
        await asyncio.to_thread(build)
    except (BuildError, OSError) as e:
        log.error("%s", e)
        return False
    return True
