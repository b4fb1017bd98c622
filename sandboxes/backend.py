"""The contract every sandbox backend (process, docker) fulfils for the pool.

A backend turns (language, source) into a Workspace bound to one pool slot: a private working
directory in which the program is compiled once and then run once per test.
"""

from __future__ import annotations

import contextlib
from typing import Protocol

from sandboxes.languages import Language
from sandboxes.results import Limits, RunResult


class SandboxError(Exception):
    """The sandbox itself failed (not the program): maps to an INFRA verdict upstream."""


class Workspace(Protocol):
    async def compile(self, deadline: float | None) -> RunResult | None:
        """Compile the source; None for interpreted languages. deadline is loop.time()-based."""

    async def run(self, stdin: bytes, limits: Limits, deadline: float | None) -> RunResult:
        """Run the (compiled) program once with stdin under limits."""


class Backend(Protocol):
    name: str

    def sandbox_id(self, language: Language) -> str:
        """The toolchain fingerprint (process) or image digest (docker) that runs this language."""

    def readiness(self, language: Language) -> tuple[bool, str]:
        """(ready, reason if not) for this language on this backend."""

    async def start(self, slots: int) -> None:
        """Prepare per-slot resources (cgroups, uids, warm containers). Raises SandboxError."""

    async def close(self) -> None:
        """Release every resource; no process or container is left behind."""

    def workspace(self, language: Language, source: str, slot: int) -> contextlib.AbstractAsyncContextManager[Workspace]:
        """A fresh workspace for one candidate in pool slot `slot` (0 <= slot < slots)."""
