"""The process backend's builds of a split's tests (docs/guards.md, "Two processes"): every completion of a GRPO
group has the same tests, so their side is compiled once per problem, by the first workspace that needs it, and each
later workspace of the problem gets a copy of what that compile left in its TESTS_DIR (and of the dispatcher's unit,
where the language compiles it apart: SplitUnit) and compiles only its program.

A build is keyed by all it is made of (the language, its compile step, the tests' source and the unit's), and made of
nothing of any candidate: the tests' side holds the prompt's helpers, the stub and the tests alone, the unit the
prompt's includes, the entry's declaration and the dispatcher. Workspaces of the same problem
wait while one builds; a failed build is not kept (the next tries again); the oldest go once MAX_BUILDS are kept.
Built per backend instance, in its directory: a toolchain upgrade never meets an old build.
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
import json
import pathlib
import shutil
from collections.abc import Awaitable, Callable, Sequence

from sandboxes.policy import Step
from sandboxes.results import RunResult, RunStatus

MAX_BUILDS = 256


def build_key(language: str, step: Step, *sources: str) -> str:
    parts = json.dumps([language, step.argv, dict(step.env), *sources], ensure_ascii=False)
    return hashlib.sha256(parts.encode("utf-8", "surrogatepass")).hexdigest()


class TestsBuilds:
    """The tests' builds of one backend instance, under `root`."""

    def __init__(self, root: pathlib.Path) -> None:
        self.root = root
        self._kept: collections.OrderedDict[str, pathlib.Path] = collections.OrderedDict()
        self._locks: dict[str, asyncio.Lock] = {}

    async def lay_out(self, key: str, box: pathlib.Path, kept_paths: Sequence[str],
                      build: Callable[[], Awaitable[RunResult]],
                      own: Callable[[pathlib.Path], None]) -> RunResult | None:
        """The build of `key` in `box`: a copy of what `kept_paths` matched there (glob patterns relative to `box`;
        each file handed over by `own`), or `build()` run now and what they match kept if it succeeded. Returns the
        failed build's result, or None."""
        async with self._locks.setdefault(key, asyncio.Lock()):
            kept = self._kept.get(key)
            if kept is None:
                result = await build()
                if result.status is not RunStatus.OK:
                    return result
                await self._keep(key, box, kept_paths)
                return None
            self._kept.move_to_end(key)
            await asyncio.to_thread(_copy, kept, box, own)
            return None

    async def _keep(self, key: str, box: pathlib.Path, kept_paths: Sequence[str]) -> None:
        target = self.root / key
        await asyncio.to_thread(_store, box, kept_paths, target)
        self._kept[key] = target
        while len(self._kept) > MAX_BUILDS:
            old, path = self._kept.popitem(last=False)
            if not self._locks[old].locked():
                del self._locks[old]
            await asyncio.to_thread(shutil.rmtree, path, True)


def _store(box: pathlib.Path, kept_paths: Sequence[str], target: pathlib.Path) -> None:
    shutil.rmtree(target, ignore_errors=True)
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
