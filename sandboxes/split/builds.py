"""A split's tests' side built once per problem, the rules every backend keeps it by (docs/guards.md, "Two processes").

Every completion of a GRPO group has the same tests, so the first workspace of a problem builds their side (and the
dispatcher's unit, where the language compiles it apart: SplitUnit), what that build left is kept, and each later
workspace of the problem gets a copy and compiles only its program. A build is keyed by all it is made of (the
language, its compile step, the tests' source and the unit's) and made of nothing of any candidate: the tests' side
holds the prompt's helpers, the stub and the tests alone, the unit the prompt's includes, the entry's declaration and
the dispatcher. Workspaces of one key wait while one builds; a failed build is not kept (the next tries again); once
MAX_BUILDS are kept, the least recently used go. How a build is kept and copied is the backend's (a directory of
files on the process backend, an archive through the runner on docker); each keeps its own, per instance, so a
toolchain upgrade never meets an old build.
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
import itertools
import json
import pathlib
import shutil
from collections.abc import Awaitable, Callable

from sandboxes.policy import Step
from sandboxes.results import RunResult, RunStatus

MAX_BUILDS = 256

# a backend's way to keep a build (into a directory it makes at the path) or to copy a kept one into its workspace:
# the failed step's ending (its sandbox lost), else None
Transfer = Callable[[pathlib.Path], Awaitable[RunResult | None]]


def build_key(language: str, step: Step, *sources: str) -> str:
    """The key of a build of `sources` (the tests' side, the unit's) by the compile `step`."""
    parts = json.dumps([language, step.argv, dict(step.env), *sources], ensure_ascii=False)
    return hashlib.sha256(parts.encode("utf-8", "surrogatepass")).hexdigest()


class KeptBuilds:
    """The kept builds of one backend instance, a directory each under `root`."""

    def __init__(self, root: pathlib.Path, max_builds: int = MAX_BUILDS) -> None:
        self.root = root
        self.max_builds = max_builds
        self._kept: collections.OrderedDict[str, pathlib.Path] = collections.OrderedDict()   # least recent first
        self._locks: dict[str, asyncio.Lock] = {}
        self._users: collections.Counter[str] = collections.Counter()   # per key: workspaces waiting or holding
        self._serial = itertools.count()

    def __len__(self) -> int:
        return len(self._kept)

    async def lay_out(self, key: str, build: Callable[[], Awaitable[RunResult]], keep: Transfer,
                      copy: Transfer) -> RunResult | None:
        """The build of `key` in a workspace: `copy(kept)` of the kept one, or `build()` run now and, if it succeeded,
        `keep(path)` (which stores it in a directory it makes there, or declines by making none). The failed step's
        ending (the build's, the keep's or the copy's), else None."""
        self._users[key] += 1
        try:
            async with self._locks.setdefault(key, asyncio.Lock()):
                kept = self._kept.get(key)
                if kept is not None:
                    self._kept.move_to_end(key)
                    return await copy(kept)
                built = await build()
                if built.status is not RunStatus.OK:
                    return built
                return await self._keep(key, keep)
        finally:
            self._users[key] -= 1
            if not self._users[key]:       # no one holds or awaits its lock: the next to come makes a new one
                del self._users[key], self._locks[key]

    async def _keep(self, key: str, keep: Transfer) -> RunResult | None:
        # a path of its own each time: a build evicted as its key is built again is removed apart from the new one
        target = self.root / f"{next(self._serial)}-{key}"
        failed = await keep(target)
        if failed is not None or not target.exists():
            await asyncio.to_thread(shutil.rmtree, target, True)
            return failed
        self._kept[key] = target
        while len(self._kept) > self.max_builds:
            # the least recently used that no workspace is copying from
            old = next((k for k in self._kept if k not in self._users), None)
            if old is None:
                break
            await asyncio.to_thread(shutil.rmtree, self._kept.pop(old), True)
        return None
