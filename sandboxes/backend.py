"""The contract every sandbox backend (process, docker) fulfils for the pool.

A backend turns (language, source) into a Workspace bound to one pool slot: a private working
directory in which the program is compiled once and then run once per test. Extra files may sit next to
the source (a call harness's program, a checker's input/output/answer files), and a run may take arguments.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import pathlib
from collections.abc import Mapping, Sequence
from typing import Protocol

from sandboxes.languages import Language
from sandboxes.results import Limits, RunResult
from sandboxes.sandbox_deaths import SandboxDeaths
from sandboxes.split import side_files

NAME_MAX = 255      # bytes in one file name: Linux's limit on every filesystem a workspace lives on


@dataclasses.dataclass(frozen=True)
class SandboxInfo:
    ready: bool
    reason: str          # why not ready ("" when ready)
    version: str         # toolchain version line, e.g. "Python 3.11.2"
    sandbox_id: str      # toolchain fingerprint (process) or name@sha256:digest (docker)
    pinned: bool = True  # False: docker backend has no digest for this language (INFRA_UNPINNED_LANGUAGE)


@dataclasses.dataclass(frozen=True)
class LimitsInfo:
    """How a started backend enforces its limits, as clients see it (ListLanguages)."""

    mode: str                        # "cgroup-v2", "cgroup-v1", "rlimit" or "docker"
    weaker: tuple[str, ...] = ()     # the guarantees this mode does not give (docs/guards.md)


@dataclasses.dataclass(frozen=True)
class SlotState:
    """What a started backend holds for the pool at one moment, one entry each (`Backend.slots`): a read-only view
    for tests and operators, never a handle on the slot itself. Each backend's own kind says what else it has."""

    busy: bool           # it holds a candidate's workspace now


class SandboxError(Exception):
    """The sandbox itself failed (not the program): maps to an INFRA verdict upstream."""


class UnsupportedWorkspace(SandboxError):
    """The backend cannot lay this workspace out: an external verifier's image takes one source alone, no split and no
    extra files. The task's shape on this backend, not the program's fault (INFRA_UNSUPPORTED_TEST upstream)."""


class SplitTestsDoNotCompile(UnsupportedWorkspace):
    """A split's tests' side does not compile: the benchmark's tests or the language's stub, never the program, of
    which nothing is there (INFRA_UNSUPPORTED_TEST upstream)."""


class SourceNameError(Exception):
    """The program cannot be laid out: the file name its language takes from it (a Java or Scala class named after
    its public type) is longer than a file name may be. Its own fault, as a compiler would say (COMPILE_ERROR
    upstream), decided before any file is written."""


def workspace_files(language: Language, source: str, files: Mapping[str, str] | None,
                    data_files: Mapping[str, str] | None = None, tests: str | None = None) -> dict[str, str]:
    """Every file a workspace starts with, by name: the source under its language's name, then the extra files, then
    the data files, whose names must be plain (no directory), not the source's and not each other's; with `tests`, the
    source and the tests each in its side's directory instead (sandboxes/split), the extra files beside each, and no
    data files. Raises SourceNameError for a source name too long to write, SandboxError for an extra or data file name
    that is not plain (the task's, not the program's)."""
    source_name = language.source_name(source)
    if len(os.fsencode(source_name)) > NAME_MAX:
        raise SourceNameError(f"the source file is named after its public type ({source_name[:40]}...): "
                              f"{len(os.fsencode(source_name))} bytes, over the {NAME_MAX} a file name may have")
    if tests is not None and data_files:
        raise SandboxError("a split candidate's workspace holds its two sides only")
    extra = {**(files or {}), **(data_files or {})}
    for name in extra:
        if (not name or name in (".", "..", source_name) or "/" in name or "\0" in name
                or len(os.fsencode(name)) > NAME_MAX):
            raise SandboxError(f"extra file name {name!r} is not a plain file name other than the source's")
    if len(extra) != len(files or {}) + len(data_files or {}):
        raise SandboxError("a data file has an extra file's name")
    if tests is not None:
        return side_files(source_name, source, tests, extra)
    return {source_name: source, **extra}


def compiled_away(language: Language, source: str, files: Mapping[str, str] | None,
                  tests: str | None = None) -> list[str]:
    """The files a compile consumes, gone once it has ended: the source and the extra files (a program's tests may be
    among them), or both sides' sources and what is beside them, never the data files its runs read."""
    if tests is not None:
        return list(side_files(language.source_name(source), source, tests, files or {}))
    return [language.source_name(source), *(files or {})]


async def build_static(gcc: str, source: pathlib.Path, target: pathlib.Path, mode: int, *flags: str) -> str:
    """A static binary of ours (it runs in every sandbox and image, whatever their C library) at `target`."""
    return await _build(gcc, source, target, mode, "-static", *flags)


async def build_shared(gcc: str, source: pathlib.Path, target: pathlib.Path) -> str:
    """A library of ours for the host's own interpreters (the process backend's zygotes load it) at `target`."""
    return await _build(gcc, source, target, 0o644, "-shared", "-fPIC")


async def _build(gcc: str, source: pathlib.Path, target: pathlib.Path, mode: int, *flags: str) -> str:
    build = await asyncio.create_subprocess_exec(
        gcc, "-O2", *flags, "-o", str(target), str(source),
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
    _, err = await build.communicate()
    if build.returncode != 0:
        raise SandboxError(f"cannot build the sandbox's {target.name}: {err.decode(errors='replace')[-500:]}")
    target.chmod(mode)
    return str(target)


class Workspace(Protocol):
    async def compile(self, deadline: float | None) -> RunResult | None:
        """Compile the source; None for interpreted languages. deadline is loop.time()-based. Once the compile has
        ended, the source and the extra files are gone (compiled_away): the runs see what the compile built and the
        data files, never the source that holds a function-style program's tests (docs/guards.md)."""

    async def run(self, stdin: bytes, limits: Limits, deadline: float | None, args: Sequence[str] = ()) -> RunResult:
        """Run the (compiled) program once with stdin under limits; `args` follow the language's run command."""


class Backend(Protocol):
    name: str
    deaths: SandboxDeaths   # steps whose sandbox died under them, and those that went again (sandbox_deaths.py)

    def describe(self, language: Language) -> SandboxInfo:
        """Whether this language can run here, its version, and what exactly would run it (cached)."""

    async def start(self, slots: int) -> None:
        """Prepare per-slot resources (cgroups, uids, warm containers). Raises SandboxError."""

    def limits(self) -> LimitsInfo:
        """How the limits are enforced, once started."""

    def slots(self) -> Sequence[SlotState]:
        """What it holds for the pool now (none before start or after close), read when called."""

    async def close(self) -> None:
        """Release every resource; no process or container is left behind."""

    def workspace(
        self, language: Language, source: str, slot: int, files: Mapping[str, str] | None = None,
        data_files: Mapping[str, str] | None = None, tests: str | None = None,
    ) -> contextlib.AbstractAsyncContextManager[Workspace]:
        """A fresh workspace for one candidate in pool slot `slot` (0 <= slot < slots); `files` (what the compile
        reads) and `data_files` (what the runs read) are written next to the source, under plain names. With `tests`
        (a function-style program's tests, in its language), the two run as two processes (sandboxes/split): each
        compile builds both, each run is the tests' against the program. Raises
        SandboxError for a name that is not a plain one, SourceNameError for a source name too long to write
        (workspace_files)."""
