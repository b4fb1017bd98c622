"""Per-slot groups on the unified hierarchy (cgroup v2): what cgroup_v1.py gives, in this process's own group.

The server nests everything under its own group, so it works wherever that group is delegated to it: a root shell,
a systemd unit with Delegate=yes (or `systemd-run --scope -p Delegate=yes`, also as an ordinary user), a container
with its own cgroup namespace and a writable cgroupfs (docs/deploy.md). A group that has controllers enabled for its
children may hold no processes of its own (the no-internal-processes rule), so at start the processes of the own
group (this server, and a container's other processes) move into a leaf, LEAF, beside the instances' groups.

    <own>/LEAF                  this server (and whatever shared its group)
    <own>/<instance>/           cpu.weight = 100 x slots: the sandboxes weigh what as many processes would
    <own>/<instance>/slotN/     memory.max, memory.swap.max 0, pids.max, cpu.weight 100 (equal shares)

A run's CPU time is the slot's `cpu.stat` usage_usec, its OOM kills `memory.events` oom_kill, both hierarchical.
Its peak memory is the slot's `memory.peak`, reset per run on kernels that allow it (6.12+: the reset is the open
file's own). Older kernels (Debian 12's 6.1) cannot reset it, so each run gets a fresh leaf of its own, slotN/rK,
whose peak is the run's; residents (zygotes) live in slotN/resident then, and a zygote moves itself into the run's
leaf around the fork that starts it, through a descriptor the server opened (the kernel checks a migration against
the opener's credentials and cgroup namespace, 5.16+).
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import logging
import os
import pathlib
import signal
import time

from sandboxes.backends.process.limits import LimitFiles, LimitsError, Measured, Usage, write_value

log = logging.getLogger(__name__)

CONTROLLERS = ("memory", "pids", "cpu")
LEAF = "reward-server"         # where this server's own processes live once its group has controllers enabled
RESIDENT = "resident"
SLOT_CPU_WEIGHT = 100          # a nice-0 process's weight
MAX_CPU_WEIGHT = 10000         # the kernel's ceiling
_NS_PER_USEC = 1000
_NS = 1e9
KILL_TIMEOUT_S = 5.0


def unified_mount() -> tuple[pathlib.Path, str] | None:
    """Where the unified hierarchy is mounted and which of its groups the mount shows as its root (not "/" where a
    container sees its own group bound without a cgroup namespace); None if it is not mounted."""
    found = None
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            fstype = fields[fields.index("-") + 1]
            if fstype == "cgroup2":
                found = pathlib.Path(fields[4]), fields[3]
                if fields[4] == "/sys/fs/cgroup":
                    break
    return found


def own_group() -> pathlib.Path:
    """This process's group directory on the unified hierarchy."""
    mount = unified_mount()
    if mount is None:
        raise LimitsError("the unified cgroup hierarchy (cgroup2) is not mounted")
    point, mount_root = mount
    for line in pathlib.Path("/proc/self/cgroup").read_text().splitlines():
        if line.startswith("0::"):
            path = line[3:].removesuffix(" (deleted)")
            relative = os.path.relpath(path, mount_root) if mount_root != "/" else path.lstrip("/")
            if relative.startswith(".."):
                raise LimitsError(f"this process's cgroup {path} is outside the mounted {mount_root}")
            return (point / relative).resolve()
    raise LimitsError("this process has no cgroup v2 group (/proc/self/cgroup)")


def base_group() -> pathlib.Path:
    """The group the instances nest in: the own group, or its parent when this process already sits in LEAF."""
    own = own_group()
    if own.name == LEAF and set(CONTROLLERS) <= set(_words(own.parent / "cgroup.subtree_control")):
        return own.parent
    return own


def _words(path: pathlib.Path) -> list[str]:
    return path.read_text().split()


def _make(group: pathlib.Path) -> None:
    try:
        group.mkdir()
    except OSError as e:
        raise LimitsError(f"cannot create {group}: {e}") from e


def _enable(group: pathlib.Path, controllers: tuple[str, ...]) -> None:
    """Enable `controllers` for the children of `group` (which must hold no processes, unless it is the root)."""
    wanted = [c for c in controllers if c not in _words(group / "cgroup.subtree_control")]
    if wanted:
        write_value(group / "cgroup.subtree_control", " ".join(f"+{c}" for c in wanted))


def prepare_base() -> pathlib.Path:
    """The base group, with memory, pids and cpu enabled for its children; its processes moved into LEAF first when
    the no-internal-processes rule demands it. LimitsError says what is missing."""
    base = base_group()
    offered = _words(base / "cgroup.controllers")
    missing = [c for c in CONTROLLERS if c not in offered]
    if missing:
        raise LimitsError(f"the cgroup {base} is not given the {', '.join(missing)} controller(s) (it has "
                          f"{' '.join(offered) or 'none'}): the parent must enable them (delegation, docs/deploy.md)")
    for name in ("cgroup.procs", "cgroup.subtree_control"):
        if not os.access(base / name, os.W_OK):
            raise LimitsError(f"cannot write {base / name}: the group is not delegated to this user (docs/deploy.md)")
    try:
        _enable(base, CONTROLLERS)
    except LimitsError as e:
        if not isinstance(e.__cause__, OSError) or e.__cause__.errno != errno.EBUSY:
            raise
        _move_members(base, base / LEAF)
        _enable(base, CONTROLLERS)
    return base


def _move_members(group: pathlib.Path, leaf: pathlib.Path) -> None:
    leaf.mkdir(exist_ok=True)
    moved = 0
    for _ in range(100):
        pids = _words(group / "cgroup.procs")
        if not pids:
            log.warning("moved %d processes (this server's included) from %s into %s: a group that enables "
                        "controllers for its children may hold no processes", moved, group, leaf)
            return
        for pid in pids:
            try:
                (leaf / "cgroup.procs").write_text(pid)
                moved += 1
            except ProcessLookupError:
                continue
            except OSError as e:
                raise LimitsError(f"cannot move process {pid} from {group} into {leaf}: {e}") from e
    raise LimitsError(f"processes keep appearing in {group}")


def peak_resettable(group: pathlib.Path) -> bool:
    """Whether this kernel resets memory.peak on a write (6.12+); older ones refuse the write."""
    try:
        fd = os.open(group / "memory.peak", os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        os.pwrite(fd, b"reset\n", 0)
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


class CgroupV2:
    """The instance's group under the base group, and a group per slot in it."""

    name = "cgroup-v2"
    rlimits_only = False
    weaker: tuple[str, ...] = ()

    def __init__(self, instance: str) -> None:
        base = prepare_base()
        self.root = base / instance
        _make(self.root)
        _enable(self.root, CONTROLLERS)
        self.resettable = peak_resettable(self.root)
        log.info("cgroup v2 in %s; a run's peak memory: %s", self.root,
                 "memory.peak, reset per run" if self.resettable else "a fresh group per run (memory.peak "
                 "cannot be reset on this kernel)")

    def slot(self, index: int) -> SlotGroup:
        return SlotGroup(self.root / f"slot{index}", self.resettable)

    def finish_start(self, slots: int) -> None:
        write_value(self.root / "cpu.weight", min(MAX_CPU_WEIGHT, SLOT_CPU_WEIGHT * slots))

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.root.rmdir()


class _Run:
    """A run's readings of its slot's counters; its processes join `group`."""

    zygote_fds: tuple[int, ...] = ()

    def __init__(self, slot: SlotGroup, group: pathlib.Path) -> None:
        self.slot = slot
        self.join = (str(group / "cgroup.procs"),)
        self.ooms_before = slot.oom_kills()
        self.cpu_before = slot.cpu_total_ns()

    def cpu_ns(self) -> int:
        return self.slot.cpu_total_ns() - self.cpu_before

    def peak_bytes(self) -> int:
        raise NotImplementedError

    def finish(self, usage: Usage | None) -> Measured:
        return Measured(self.cpu_ns() / _NS, self.peak_bytes(), self.slot.oom_kills() > self.ooms_before)

    def close(self) -> None:
        """Nothing: the slot's group serves every run."""


class _SharedRun(_Run):
    """A run in the slot's own group, its peak reset as it starts (kernels that allow it)."""

    def __init__(self, slot: SlotGroup) -> None:
        super().__init__(slot, slot.path)
        self.memory_before = slot.reset_peak()

    def peak_bytes(self) -> int:
        return max(0, int(os.pread(self.slot.peak_fd, 64, 0)) - self.memory_before)


class _LeafRun(_Run):
    """A run in a fresh leaf of the slot, whose memory.peak is the run's own."""

    def __init__(self, slot: SlotGroup, leaf: pathlib.Path) -> None:
        _make(leaf)
        super().__init__(slot, leaf)
        self.leaf = leaf
        self.zygote_fds = (os.open(leaf / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC),
                           os.open(slot.path / RESIDENT / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC))

    def peak_bytes(self) -> int:
        return int((self.leaf / "memory.peak").read_text())

    def close(self) -> None:
        for fd in self.zygote_fds:
            os.close(fd)
        self.zygote_fds = ()
        try:
            self.leaf.rmdir()
        except OSError as e:       # still populated: the slot's removal takes it
            log.warning("cannot remove %s: %s", self.leaf, e)


class SlotGroup:
    """One pool slot's group: its limits, counters and members."""

    def __init__(self, path: pathlib.Path, resettable: bool) -> None:
        self.path = path
        self.resettable = resettable
        _make(path)
        write_value(path / "cpu.weight", SLOT_CPU_WEIGHT)
        if (path / "memory.swap.max").exists():
            write_value(path / "memory.swap.max", 0)
        if not resettable:
            _enable(path, ("memory",))
            (path / RESIDENT).mkdir()
        home = path if resettable else path / RESIDENT
        self.resident_join = (str(home / "cgroup.procs"),)
        self._runs = itertools.count()
        # read at least twice a run: kept open and read with pread
        self._counters = {name: os.open(path / file, os.O_RDONLY | os.O_CLOEXEC) for name, file in (
            ("cpu", "cpu.stat"), ("events", "memory.events"), ("tasks", "pids.current"))}
        self.peak_fd = os.open(path / "memory.peak", (os.O_RDWR if resettable else os.O_RDONLY) | os.O_CLOEXEC)
        self._limits = LimitFiles(path / "memory.max", path / "pids.max")

    def set_limits(self, memory_bytes: int, max_pids: int) -> None:
        self._limits.set(memory_bytes, max_pids)

    def begin(self) -> _Run:
        if self.resettable:
            return _SharedRun(self)
        return _LeafRun(self, self.path / f"r{next(self._runs)}")

    def track(self, pid: int) -> None:
        """Nothing: every process of the slot is in its group."""

    def _read(self, counter: str) -> bytes:
        return os.pread(self._counters[counter], 4096, 0)

    def _field(self, counter: str, name: bytes) -> int:
        for line in self._read(counter).splitlines():
            key, _, value = line.partition(b" ")
            if key == name:
                return int(value)
        raise LimitsError(f"no {name.decode()} in {self.path}/{counter}")

    def cpu_total_ns(self) -> int:
        return self._field("cpu", b"usage_usec") * _NS_PER_USEC

    def oom_kills(self) -> int:
        return self._field("events", b"oom_kill")

    def tasks(self) -> int:
        return int(self._read("tasks"))

    def reset_peak(self) -> int:
        """Reset this descriptor's peak and return where it starts: what the group holds now."""
        try:
            os.pwrite(self.peak_fd, b"reset\n", 0)
        except OSError as e:
            raise LimitsError(f"cannot reset {self.path}/memory.peak: {e}") from e
        return int(os.pread(self.peak_fd, 64, 0))

    def anon_bytes(self) -> int:
        for line in (self.path / "memory.stat").read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == "anon":
                return int(value)
        raise LimitsError(f"no anon in {self.path}/memory.stat")

    def members(self) -> list[int]:
        """Processes in the slot's group and its leaves."""
        return _members(self.path)

    def remove(self) -> None:
        """Kill everything in the slot (cgroup.kill), then remove its leaves and itself."""
        kill_group(self.path)
        for fd in (*self._counters.values(), self.peak_fd):
            os.close(fd)
        self._counters = {}
        remove_tree(self.path)

    def __str__(self) -> str:
        return str(self.path)


def kill_group(group: pathlib.Path) -> None:
    """SIGKILL every process in `group` and below (cgroup.kill; one by one before 5.14), and wait until it is
    empty."""
    deadline = time.monotonic() + KILL_TIMEOUT_S
    while "populated 1" in (group / "cgroup.events").read_text():
        if time.monotonic() > deadline:
            raise LimitsError(f"processes survive SIGKILL in {group}")
        if (group / "cgroup.kill").exists():
            write_value(group / "cgroup.kill", 1)
        else:
            for pid in _members(group):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)


def _members(group: pathlib.Path) -> list[int]:
    """Processes in `group` and the groups below it."""
    pids = []
    for directory, _, _ in os.walk(group):
        with contextlib.suppress(FileNotFoundError), open(os.path.join(directory, "cgroup.procs"), "rb") as f:
            pids.extend(int(p) for p in f.read().split())
    return pids


def remove_tree(group: pathlib.Path) -> None:
    """Remove an emptied group and every group below it, deepest first."""
    for directory, _, _ in sorted(os.walk(group), key=lambda entry: -len(entry[0])):
        with contextlib.suppress(FileNotFoundError):
            os.rmdir(directory)


def remove_leftovers(instance: str) -> None:
    """Kill and remove the groups a dead instance named `instance` left."""
    with contextlib.suppress(LimitsError, OSError):
        group = base_group() / instance
        if group.is_dir():
            kill_group(group)
            remove_tree(group)
