"""The process backend's builds of a split's tests (docs/guards.md, "Two processes"; their rules are
sandboxes/split/builds.py's): what the first workspace of a problem left in its TESTS_DIR (and the dispatcher's unit's
objects) is copied into a directory of the backend instance's, and from there into each later workspace of the problem.
"""

from __future__ import annotations

import asyncio
import pathlib
import shutil
from collections.abc import Awaitable, Callable, Sequence

from sandboxes.results import RunResult
from sandboxes.split.builds import KeptBuilds, build_key

__all__ = ["TestsBuilds", "build_key"]


class TestsBuilds:
    """The tests' builds of one backend instance, under `root`."""

    def __init__(self, root: pathlib.Path) -> None:
        self.builds = KeptBuilds(root)

    async def lay_out(self, key: str, box: pathlib.Path, kept_paths: Sequence[str],
                      build: Callable[[], Awaitable[RunResult]],
                      own: Callable[[pathlib.Path], None]) -> RunResult | None:
        """The build of `key` in `box`: a copy of what `kept_paths` matched there (glob patterns relative to `box`;
        each file handed over by `own`), or `build()` run now and what they match kept if it succeeded. Returns the
        failed build's result, or None."""

        async def keep(target: pathlib.Path) -> None:
            await asyncio.to_thread(_store, box, kept_paths, target)

        async def copy(kept: pathlib.Path) -> None:
            await asyncio.to_thread(_copy, kept, box, own)

        return await self.builds.lay_out(key, build, keep, copy)


def _store(box: pathlib.Path, kept_paths: Sequence[str], target: pathlib.Path) -> None:
    for pattern in kept_paths:
        for found in box.glob(pattern):
            kept = target / found.relative_to(box)
            kept.parent.mkdir(parents=True, exist_ok=True)
            if found.is_dir() and not found.is_symlink():
                shutil.copytree(found, kept, symlinks=True)
            else:
                shutil.copy2(found, kept, follow_symlinks=False)


def _copy(kept: pathlib.Path, box: pathlib.Path, own: Callable[[pathlib.Path], None]) -> None:
    for source in sorted(kept.rglob("*")):
        target = box / source.relative_to(kept)
        if source.is_dir() and not source.is_symlink():
            target.mkdir(exist_ok=True)
        else:
            shutil.copy2(source, target, follow_symlinks=False)
        own(target)
