"""Per-slot cgroup v1 groups: real memory, process count and an equal share of the CPU for sandboxes.

One set of groups per pool slot is created once, reused by every run in that slot (a run only
rewrites the limits when they change) and removed at close. The groups are nested under this
process's own groups, so whatever limits the server itself runs under also bound its sandboxes.
An OOM kill is observed as a rise of the `oom_kill` counter in memory.oom_control. The slots' `cpu`
groups are siblings with equal `cpu.shares`: a slot full of busy processes gets no more CPU than a
slot running one, whatever the host's autogroup setting; `cpuacct` counts what a slot's processes used,
dead ones included, and the memory group's high-water mark (memory.max_usage_in_bytes, reset before each run)
how much memory they held at most. Their parent weighs as much as its slots would as single processes, so the
sandboxes as a whole compete with the host's processes (the server's own included) as they did before
they had cpu groups.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pathlib
import signal
import time

from sandboxes.backends.process.limits import LimitFiles, LimitsError, Measured, Usage, write_value

log = logging.getLogger(__name__)

CGROUP_ROOT = pathlib.Path("/sys/fs/cgroup")
CONTROLLERS = ("memory", "pids", "cpu", "cpuacct")  # joined in this order: pids before cpu, see remove()
SLOT_CPU_SHARES = 1024                # a nice-0 process's weight
MAX_CPU_SHARES = 262144               # the kernel's ceiling
_NS = 1e9


def _mount(controller: str) -> tuple[pathlib.Path, str]:
    """Where the controller's hierarchy is mounted and which of its groups the mount shows as its root (a container
    without a cgroup namespace sees its own group there, not "/")."""
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            separator = fields.index("-")
            if fields[separator + 1] == "cgroup" and controller in fields[separator + 3].split(","):
                return pathlib.Path(fields[4]), fields[3]
    return CGROUP_ROOT / controller, "/"


def own_group(controller: str) -> pathlib.Path:
    """This process's group directory for a v1 controller (from /proc/self/cgroup and the mount)."""
    for line in pathlib.Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            point, root = _mount(controller)
            relative = os.path.relpath(path, root)
            if relative.startswith(".."):
                raise LimitsError(f"this process's {controller} group {path} is outside the mounted {root}")
            return (point / relative).resolve()
    raise LimitsError(f"no cgroup v1 {controller!r} controller for this process")


class CgroupV1:
    """The instance's groups: one parent per controller, named after the instance, under this process's own."""

    name = "cgroup-v1"
    rlimits_only = False
    weaker: tuple[str, ...] = ()

    def __init__(self, instance: str) -> None:
        self.instance = instance
        for controller in CONTROLLERS:
            path = own_group(controller)
            if not os.access(path, os.W_OK):
                raise LimitsError(f"cannot write to this process's cgroup v1 {controller!r} group {path}")

    def slot(self, index: int) -> SlotCgroup:
        return SlotCgroup.create(self.instance, f"slot{index}")

    def finish_start(self, slots: int) -> None:
        """Give the parent of the slots' cpu groups the weight of `slots` nice-0 processes."""
        write_value(own_group("cpu") / self.instance / "cpu.shares", min(MAX_CPU_SHARES, SLOT_CPU_SHARES * slots))

    def close(self) -> None:
        """The shared parents went with their last slot (SlotCgroup.remove)."""


class _Run:
    """One run's readings: the slot's counters before and after it."""

    zygote_fds: tuple[int, ...] = ()

    def __init__(self, group: SlotCgroup) -> None:
        self.group = group
        self.join = group.procs_files
        self.ooms_before = group.oom_kills()
        self.cpu_before = group.cpu_total_ns()
        self.memory_before = group.reset_peak()

    def cpu_ns(self) -> int:
        return self.group.cpu_total_ns() - self.cpu_before

    def finish(self, usage: Usage | None) -> Measured:
        return Measured(self.cpu_ns() / _NS, max(0, self.group.peak_bytes() - self.memory_before),
                        self.group.oom_kills() > self.ooms_before)

    def close(self) -> None:
        """Nothing: the slot's groups serve every run."""


class SlotCgroup:
    """The memory, pids, cpu and cpuacct groups of one pool slot."""

    def __init__(self, memory: pathlib.Path, pids: pathlib.Path, cpu: pathlib.Path, cpuacct: pathlib.Path) -> None:
        self.memory = memory
        self.pids = pids
        self.cpu = cpu
        self.cpuacct = cpuacct
        # where `cpu,cpuacct` is one hierarchy, both name one directory
        self._dirs = tuple(dict.fromkeys((memory, pids, cpu, cpuacct)))
        # read at least twice a run: kept open and read with pread (a twelfth of an open, read and close)
        self._counters = {name: os.open(path, os.O_RDONLY | os.O_CLOEXEC) for name, path in (
            ("usage", cpuacct / "cpuacct.usage"), ("oom", memory / "memory.oom_control"),
            ("tasks", pids / "pids.current"))}
        self._counters["peak"] = os.open(memory / "memory.max_usage_in_bytes", os.O_RDWR | os.O_CLOEXEC)
        self._limits = LimitFiles(memory / "memory.limit_in_bytes", pids / "pids.max")

    @classmethod
    def create(cls, parent_name: str, name: str) -> SlotCgroup:
        dirs = []
        for controller in CONTROLLERS:
            path = (own_group(controller) / parent_name / name).resolve()
            try:
                path.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise LimitsError(f"cannot create {path}: {e}") from e
            dirs.append(path)
        group = cls(*dirs)
        write_value(group.cpu / "cpu.shares", SLOT_CPU_SHARES)
        return group

    @property
    def procs_files(self) -> tuple[str, ...]:
        """The files a process writes its pid to, in order, to join every group."""
        return tuple(str(path / "cgroup.procs") for path in self._dirs)

    resident_join = procs_files

    def set_limits(self, memory_bytes: int, max_pids: int) -> None:
        self._limits.set(memory_bytes, max_pids)

    def begin(self) -> _Run:
        return _Run(self)

    def track(self, pid: int) -> None:
        """Nothing: every process of the slot is in its groups."""

    def oom_kills(self) -> int:
        for line in self._read("oom").splitlines():
            name, _, value = line.partition(b" ")
            if name == b"oom_kill":
                return int(value)
        raise LimitsError(f"no oom_kill counter in {self.memory}/memory.oom_control")

    def cpu_total_ns(self) -> int:
        """CPU nanoseconds the slot's processes have used since the group was made (dead ones included)."""
        return int(self._read("usage"))

    def tasks(self) -> int:
        """How many tasks (threads included) the pids group holds, zombies not yet reaped included."""
        return int(self._read("tasks"))

    def reset_peak(self) -> int:
        """Start a new memory high-water mark and return where it starts: the bytes the group holds now.

        Writing 0 sets the mark to the current usage, so reading it right back gives the baseline a run's own peak
        is measured from (one write and one read; no separate read of memory.usage_in_bytes).
        """
        fd = self._counters["peak"]
        try:
            os.pwrite(fd, b"0", 0)
        except OSError as e:
            raise LimitsError(f"cannot reset {self.memory}/memory.max_usage_in_bytes: {e}") from e
        return int(os.pread(fd, 64, 0))

    def peak_bytes(self) -> int:
        """The most bytes the memory group has held since reset_peak (residents and page cache included)."""
        return int(self._read("peak"))

    def anon_bytes(self) -> int:
        for line in (self.memory / "memory.stat").read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == "rss":
                return int(value)
        raise LimitsError(f"no rss in {self.memory}/memory.stat")

    def _read(self, counter: str) -> bytes:
        return os.pread(self._counters[counter], 4096, 0)

    def members(self) -> list[int]:
        """Processes in the slot (every sandbox joins the pids group; one read, since runs check it each time)."""
        with open(self.pids / "cgroup.procs", "rb") as f:
            return [int(p) for p in f.read().split()]

    def all_members(self) -> list[int]:
        """Processes in either group (one that died between joining the two is only in the memory group)."""
        pids = set(self.members())
        pids.update(int(p) for p in (self.memory / "cgroup.procs").read_text().split())
        return sorted(pids)

    def kill_all(self, timeout_s: float = 5.0) -> None:
        """SIGKILL every member until both groups are empty; LimitsError if they will not empty."""
        deadline = time.monotonic() + timeout_s
        while members := self.all_members():
            if time.monotonic() > deadline:
                raise LimitsError(f"processes {members} survive SIGKILL in {self.pids}")
            for pid in members:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)

    def remove(self) -> None:
        """Kill the members, then remove the groups (a process joins pids before cpu, so an empty pids and
        memory group leave the cpu groups empty too)."""
        self.kill_all()
        for fd in self._counters.values():
            os.close(fd)
        self._counters = {}
        for path in self._dirs:
            with contextlib.suppress(FileNotFoundError):
                path.rmdir()
            with contextlib.suppress(OSError):
                path.parent.rmdir()  # the shared parent goes with its last slot

    def __str__(self) -> str:
        return str(self.pids)


def remove_leftovers(instance: str) -> None:
    """Kill and remove the groups a dead instance named `instance` left."""
    for controller in CONTROLLERS:
        with contextlib.suppress(LimitsError, OSError):
            group = own_group(controller) / instance
            for slot in group.glob("slot*"):
                kill_procs(slot)
                slot.rmdir()
            group.rmdir()


def kill_procs(group: pathlib.Path, tries: int = 100) -> None:
    """SIGKILL the processes listed in `group`/cgroup.procs until there are none (or `tries` rounds passed)."""
    for _ in range(tries):
        pids = [int(p) for p in (group / "cgroup.procs").read_text().split()]
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)
