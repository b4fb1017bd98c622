"""Slots without cgroups: every limit is an rlimit of each process, every measure the run's own account.

For hosts where no cgroup can be written (an unprivileged container, a Slurm or Apptainer job, a v2 group that is not
delegated). What holds and what does not is docs/guards.md's "Limits without cgroups"; in short:
- memory: RLIMIT_DATA at the limit on every process (the backend sets it in this mode), so one process cannot hold
  more than the limit, but a tree of processes can hold the limit each (bounded by the process count);
- processes: RLIMIT_NPROC, per uid, so per slot where each slot has its uid (root);
- CPU time: RLIMIT_CPU on each process stops a lone spinner at the budget; the whole tree's CPU time (the launcher's
  or the zygote's wait4 totals) decides the verdict once the run has ended, and a tree that spins in several
  processes is stopped by the wall-clock backstop, not at its budget;
- peak memory is the largest single process's (ru_maxrss), OOM kills are not seen (an allocation fails instead);
- no CPU shares: slots compete as their processes do.
A slot's processes are what its launchers started, found through /proc (each launcher is a subreaper, so nothing a
run starts leaves its tree).
"""

from __future__ import annotations

from sandboxes.backends.process.limits import Measured, Usage, descendants

_NS = 1e9


class Rlimits:
    name = "rlimit"
    rlimits_only = True
    weaker = (
        "memory is bounded per process (RLIMIT_DATA), not for the run's processes together",
        "a run spinning in several processes is stopped by the wall-clock backstop, not at its CPU budget "
        "(its verdict still counts the whole tree's CPU time)",
        "slots get no equal CPU shares: a slot with many busy processes slows its neighbours",
        "peak memory is the largest single process's, not the run's total",
        "no OOM kill: a run over its memory limit sees an allocation fail",
    )

    def slot(self, index: int) -> RlimitSlot:
        return RlimitSlot()

    def finish_start(self, slots: int) -> None:
        """Nothing to weigh without cpu groups."""

    def close(self) -> None:
        """Nothing: the slots hold no host resource."""


class _Run:
    join: tuple[str, ...] = ()
    zygote_fds: tuple[int, ...] = ()

    def cpu_ns(self) -> None:
        return None

    def finish(self, usage: Usage | None) -> Measured:
        if usage is None:
            return Measured(None, None, False)
        return Measured(usage.cpu_ns / _NS, usage.max_rss_bytes, False)

    def close(self) -> None:
        """Nothing: a run holds nothing here."""


class RlimitSlot:
    """A slot's processes, as the descendants of the launchers started in it."""

    resident_join: tuple[str, ...] = ()

    def __init__(self) -> None:
        self._roots: set[int] = set()

    def set_limits(self, memory_bytes: int, max_pids: int) -> None:
        """Nothing here: each process carries its rlimits (launcher.c, zygote_main.py)."""

    def begin(self) -> _Run:
        return _Run()

    def track(self, pid: int) -> None:
        self._roots.add(pid)

    def members(self) -> list[int]:
        found = descendants(self._roots)
        self._roots &= set(found)
        return found

    def tasks(self) -> int:
        return len(self.members())

    def anon_bytes(self) -> int:
        """Nothing to add: without a shared memory limit a resident costs no run anything."""
        return 0

    def remove(self) -> None:
        """Nothing: the backend kills the slot's processes (they are its launchers' children)."""
