"""How the process backend bounds a slot and measures its runs: one interface, three mechanisms.

- `cgroup-v2` (cgroup_v2.py): the unified hierarchy, in this process's own (delegated) group.
- `cgroup-v1` (cgroup_v1.py): the legacy per-controller hierarchies.
- `rlimit` (rlimit_slots.py): no writable cgroups at all (an unprivileged container, a Slurm job): rlimits on every
  process and each run's own accounting; weaker, and docs/guards.md says exactly how.

`serve --limits auto` takes the strongest the host offers (v2, then v1, then rlimits) and logs what it took and why;
`cgroup` refuses to start without cgroups, `rlimit` never uses them. The mode is reported to clients
(ListLanguages' `limits`) and as a metric, so a training run can refuse a weaker one.
"""

from __future__ import annotations

import dataclasses
import errno
import os
import pathlib
import resource
from collections.abc import Iterable
from typing import Protocol

# The rlimits every sandboxed process gets, in the order launcher.c reads them and zygote_main.py's RLIMITS names them
# (tests/sandboxes/test_contracts.py holds all three to it).
RLIMITS = {"cpu": resource.RLIMIT_CPU, "fsize": resource.RLIMIT_FSIZE, "nofile": resource.RLIMIT_NOFILE,
           "nproc": resource.RLIMIT_NPROC, "as": resource.RLIMIT_AS, "data": resource.RLIMIT_DATA}


class LimitsError(Exception):
    """The limits mechanism could not be set up, configured or emptied."""


class MemoryInUse(LimitsError):
    """A step's memory limit is below what the slot's group holds and cannot reclaim: its workspace's files (a tmpfs
    charged to the group), which the program's own build or run wrote; never a sandbox failure (cgroup v1 refuses the
    write with EBUSY)."""


def write_value(path: pathlib.Path, value: str | int) -> None:
    """Write a cgroup file; LimitsError naming it if the kernel refuses."""
    try:
        path.write_text(str(value))
    except OSError as e:
        raise LimitsError(f"cannot write {value} to {path}: {e}") from e


class LimitFiles:
    """A slot's memory and process limit files, written only when a step's limits differ from the last ones."""

    def __init__(self, memory: pathlib.Path, pids: pathlib.Path) -> None:
        self.files = (memory, pids)
        self.values: tuple[int, int] | None = None

    def set(self, memory_bytes: int, max_pids: int) -> None:
        values = (memory_bytes, max_pids)
        for path, value, last in zip(self.files, values, self.values or (None, None), strict=True):
            if value != last:
                try:
                    write_value(path, value)
                except LimitsError as e:
                    self.values = None      # the kernel kept the old value: write both next time
                    if path is self.files[0] and getattr(e.__cause__, "errno", None) == errno.EBUSY:
                        raise MemoryInUse(str(e)) from e.__cause__
                    raise
        self.values = values


@dataclasses.dataclass(frozen=True)
class Usage:
    """What a run's processes used by their own account: the launcher's (or the zygote's) wait4 totals of the whole
    process tree, reaped descendants included."""

    cpu_ns: int
    max_rss_bytes: int       # the largest single process, not their sum


@dataclasses.dataclass(frozen=True)
class Measured:
    cpu_s: float | None          # None: not measured (a run whose own account never came)
    peak_bytes: int | None
    oom_killed: bool


class RunMeter(Protocol):
    """One run's accounting, from just before its first process to after its last."""

    join: tuple[str, ...]       # the cgroup.procs files the launcher writes its pid to, in order
    zygote_fds: tuple[int, ...]  # cgroup.procs descriptors, the run's and the zygote's own: the zygote moves itself
                                 # into the first around the fork that starts the run, then back (cgroup_v2.py)

    def cpu_ns(self) -> int | None:
        """CPU nanoseconds the run has used so far, all its processes; None: not measurable while it runs."""

    def finish(self, usage: Usage | None) -> Measured:
        """What the run used and whether the OOM killer struck, once its processes are gone."""

    def close(self) -> None:
        """Release what the run's accounting held (a per-run group)."""


class SlotLimits(Protocol):
    """The limits of one pool slot, which every process of the slot (runs and residents) shares."""

    resident_join: tuple[str, ...]   # where a resident (a zygote) joins

    def set_limits(self, memory_bytes: int, max_pids: int) -> None: ...

    def begin(self) -> RunMeter: ...

    def track(self, pid: int) -> None:
        """A process started in the slot (a launcher): what `members` starts from where there are no groups."""

    def members(self) -> list[int]:
        """The slot's processes now (residents included)."""

    def tasks(self) -> int:
        """How many tasks the slot holds, zombies included."""

    def anon_bytes(self) -> int:
        """Anonymous memory the slot's processes hold (what a resident costs every run's memory limit)."""

    def remove(self) -> None:
        """Kill every member and remove what the slot held."""


class Mechanism(Protocol):
    """A backend instance's limits: made once at start, a slot's at a time, closed at the end."""

    name: str                        # "cgroup-v2", "cgroup-v1" or "rlimit": what clients see
    weaker: tuple[str, ...]          # guarantees this mode does not give (docs/guards.md), for clients and the log
    rlimits_only: bool               # no group bounds or counts a run: every process gets RLIMIT_DATA at the memory
                                     # limit (a spawned run's init counts its whole tree's CPU: launcher.c)

    def slot(self, index: int) -> SlotLimits: ...

    def finish_start(self, slots: int) -> None:
        """Once every slot exists: weigh the instance as `slots` processes would."""

    def close(self) -> None: ...


def descendants(roots: Iterable[int]) -> list[int]:
    """`roots` that are alive and every process below them (each thread's children: /proc/PID/task/TID/children)."""
    found: list[int] = []
    stack = list(roots)
    seen: set[int] = set()
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            threads = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        found.append(pid)
        for tid in threads:
            try:
                with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                    stack.extend(int(child) for child in f.read().split())
            except OSError:
                continue
    return found


_TICK_S = 1 / os.sysconf("SC_CLK_TCK")


def tree_cpu_s(pids: Iterable[int]) -> float:
    """CPU seconds these live processes and the descendants they reaped have used (utime, stime, cutime and cstime of
    /proc/PID/stat): what a tree has spent, read before it is killed where nothing counts it live (rlimits); once
    killed, its processes' accounts die with the ones that would have reaped them."""
    ticks = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        ticks += sum(int(field) for field in fields[11:15])
    return ticks * _TICK_S
