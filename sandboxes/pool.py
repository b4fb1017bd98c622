"""The sandbox pool: a fixed number of slots over one backend, admitted by the fair scheduler."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
from collections.abc import AsyncIterator, Mapping

from sandboxes.backend import Backend, SandboxInfo, Workspace
from sandboxes.languages import Language
from sandboxes.scheduler import FairScheduler


@dataclasses.dataclass(frozen=True)
class PoolStats:
    slots: int
    busy: int
    queued: int
    sandbox_deaths: Mapping[str, int]   # steps whose sandbox died under them, by cause (sandbox_deaths.py)
    retried_steps: int


def default_slots() -> int:
    return len(os.sched_getaffinity(0))


class SandboxPool:
    def __init__(self, backend: Backend, slots: int | None = None, max_queue: int = 100_000) -> None:
        self.backend = backend
        self.scheduler = FairScheduler(slots or default_slots(), max_queue)
        self._infos: dict[str, SandboxInfo] = {}

    async def start(self) -> None:
        await self.backend.start(self.scheduler.slots)

    async def close(self) -> None:
        await self.backend.close()

    async def describe(self, language: Language) -> SandboxInfo:
        """The backend's answer, probed once per language in a thread: a probe runs the toolchain's version
        command (kotlinc takes seconds) or asks the engine, and must never stall the event loop."""
        info = self._infos.get(language.key)
        if info is None:
            info = self._infos[language.key] = await asyncio.to_thread(self.backend.describe, language)
        return info

    def stats(self) -> PoolStats:
        deaths = self.backend.deaths
        return PoolStats(self.scheduler.slots, self.scheduler.busy, self.scheduler.queued, dict(deaths.by_cause),
                         deaths.retried)

    @contextlib.asynccontextmanager
    async def workspace(
        self, language: Language, source: str, *, priority: int, caller: str, deadline: float | None,
        files: Mapping[str, str] | None = None, data_files: Mapping[str, str] | None = None,
        tests: str | None = None,
    ) -> AsyncIterator[Workspace]:
        """A workspace in a slot of its own, held until the block exits (compile once, run every test)."""
        slot = await self.scheduler.acquire(priority, caller, deadline)
        try:
            async with self.backend.workspace(language, source, slot, files, data_files, tests) as workspace:
                yield workspace
        finally:
            self.scheduler.release(slot)
