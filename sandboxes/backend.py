"""The contract every sandbox backend (process, docker) fulfils for the pool.

A backend turns (language, source) into a Workspace bound to one pool slot: a private working
directory in which the program is compiled once and then run once per test.
"""

from __future__ import annotations

import contextlib
import dataclasses
from typing import Protocol

from sandboxes.languages import Language
from sandboxes.results import Limits, RunResult


@dataclasses.dataclass(frozen=True)
class SandboxInfo:
    ready: bool
    reason: str          # why not ready ("" when ready)
    version: str         # toolchain version line, e.g. "Python 3.11.2"
    sandbox_id: str      # toolchain fingerprint (process) or name@sha256:digest (docker)
    pinned: bool = True  # False: docker backend has no digest for this language (INFRA_UNPINNED_LANGUAGE)


class SandboxError(Exception):
    """The sandbox itself failed (not the program): maps to an INFRA verdict upstream."""


class Workspace(Protocol):
    async def compile(self, deadline: float | None) -> RunResult | None:
        """Compile the source; None for interpreted languages. deadline is loop.time()-based."""

    async def run(self, stdin: bytes, limits: Limits, deadline: float | None) -> RunResult:
        """Run the (compiled) program once with stdin under limits."""


class Backend(Protocol):
    name: str

    def describe(self, language: Language) -> SandboxInfo:
        """Whether this language can run here, its version, and what exactly would run it (cached)."""

    async def start(self, slots: int) -> None:
        """Prepare per-slot resources (cgroups, uids, warm containers). Raises SandboxError."""

    async def close(self) -> None:
        """Release every resource; no process or container is left behind."""

    def workspace(
        self, language: Language, source: str, slot: int
    ) -> contextlib.AbstractAsyncContextManager[Workspace]:
        """A fresh workspace for one candidate in pool slot `slot` (0 <= slot < slots)."""
