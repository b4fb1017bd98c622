"""A pool slot of the process backend: its uid, its directory of workspaces, its limits and its residents.

As root, each slot runs as a uid of its own (claimed with a lock file each in UID_LOCK_DIR, so several servers or test
runs on one host never share one), which makes RLIMIT_NPROC a per-slot limit and keeps slots from signalling each
other's processes; its workspaces live on a tmpfs of its own, charged to its memory limit and never to the host's
disk. Without root every slot runs as the server's own uid (the launcher gives each run a user namespace of its own,
so RLIMIT_NPROC still counts the run's processes only), and the workspaces are plain directories in $TMPDIR.

A finished workspace is removed whatever its program left in it (sandboxes/trees.py). One that still cannot be removed
costs the slot its workspaces' directory, never its next program a dirty one: the slot's zygotes (which see that
directory) are stopped, and as root its tmpfs is dropped and a fresh one mounted, without root the directory is moved
aside in the instance's and a fresh one made. A slot whose renewal failed renews before its next workspace.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import fcntl
import logging
import os
import pathlib
import signal
import subprocess
import time

from sandboxes.backend import SandboxError, SlotState
from sandboxes.backends.process.limits import LimitsError, Mechanism, SlotLimits
from sandboxes.backends.process.zygote import Zygote
from sandboxes.results import Limits
from sandboxes.trees import remove_tree

log = logging.getLogger(__name__)

BASE_UID = 20000
UID_LOCK_DIR = pathlib.Path("/run/reward-sandboxes")
UID_SEARCH = 10000              # how far above base_uid to look for free uids
SLOT_TMPFS_MB = 4096            # cap per slot; the memory limit is what really bounds a run's files
SMALL_WORKSPACE = 64            # entries a finished workspace may hold to be removed on the loop, not in a thread
SPAWNED_EXTRA = 3               # a spawned run's own processes: the launcher, bwrap and the sandbox's init (`--reap`)
FORKED_EXTRA = 1                # a zygote's run adds its init (the zygote's own processes are the slot's residents)


@dataclasses.dataclass(frozen=True)
class ProcessSlotState(SlotState):
    """A process slot as it was when read (`ProcessBackend.slots`)."""

    index: int
    uid: int                        # what its sandboxes run as
    workspaces: pathlib.Path        # where its workspaces live (a tmpfs of its own as root)
    residents: frozenset[int]       # its zygotes' processes, which live between runs
    processes: tuple[int, ...]      # every process its limits hold: the residents and whatever its runs started
    tasks: int                      # the tasks its limits count, zombies (and under cgroups threads) included

    @property
    def strangers(self) -> tuple[int, ...]:
        """The processes that are not residents: a run's (none between runs)."""
        return tuple(pid for pid in self.processes if pid not in self.residents)


@dataclasses.dataclass
class Slot:
    index: int
    uid: int
    uid_lock: int | None        # fd holding the flock that reserves `uid` for this process (None: the server's uid)
    root: pathlib.Path          # this slot's workspaces (a tmpfs as root)
    limits: SlotLimits
    busy: bool = False
    dirty: bool = False         # a workspace could not be removed, nor the slot's workspaces renewed: renew first
    zygotes: dict[str, Zygote] = dataclasses.field(default_factory=dict)    # by language key

    @property
    def own_uid(self) -> bool:
        """Whether the slot runs as a uid of its own (root), not as the server's."""
        return self.uid_lock is not None

    @property
    def resident_pids(self) -> frozenset[int]:
        """The processes that live in the slot between runs (its zygotes), counted on top of every limit."""
        return frozenset().union(*(zygote.resident_pids for zygote in self.zygotes.values()))

    @property
    def resident_bytes(self) -> int:
        return sum(zygote.resident_bytes for zygote in self.zygotes.values())

    def memory_bytes(self, limits: Limits) -> int:
        """The slot's memory limit for a step: the step's own plus what its residents hold."""
        return (limits.memory_mb << 20) + self.resident_bytes

    def pids_max(self, limits: Limits, forked: bool) -> int:
        """The slot's process limit for a step: the step's own, the sandbox's processes and the residents."""
        return limits.max_processes + (FORKED_EXTRA if forked else SPAWNED_EXTRA) + len(self.resident_pids)

    def nproc(self, limits: Limits, forked: bool) -> int:
        """A step's RLIMIT_NPROC: as the slot's process limit for a spawned step; a forked one counts in the zygote's
        user namespace, where the zygote, the run's init and the program's processes are."""
        return limits.max_processes + SPAWNED_EXTRA if forked else self.pids_max(limits, forked)

    def set_limits(self, limits: Limits, forked: bool) -> None:
        self.limits.set_limits(self.memory_bytes(limits), self.pids_max(limits, forked))

    def state(self) -> ProcessSlotState:
        return ProcessSlotState(self.busy, self.index, self.uid, self.root, self.resident_pids,
                                tuple(self.limits.members()), self.limits.tasks())

    def strangers(self) -> list[int]:
        """The processes in the slot that are not its residents (none, between runs)."""
        try:
            return [pid for pid in self.limits.members() if pid not in self.resident_pids]
        except OSError:
            return []

    async def sweep(self) -> None:
        """Kill whatever but its residents is left in the slot (nothing, normally: a run's pid namespace dies with
        its init)."""
        if self.limits.tasks() <= len(self.resident_pids):
            return
        for _ in range(500):
            strangers = self.strangers()
            if not strangers and self.limits.tasks() <= len(self.resident_pids):
                return
            if strangers:
                log.warning("killing %d processes left in slot %d", len(strangers), self.index)
            for pid in strangers:
                kill_quietly(pid)
            await asyncio.sleep(0.01)
        raise LimitsError(f"processes {self.strangers()} survive SIGKILL in slot {self.index}")

    def own(self, path: pathlib.Path) -> None:
        """Hand `path` to the slot's uid (nothing to do where the slot runs as the server's)."""
        if self.own_uid:
            os.chown(path, self.uid, self.uid)

    def new_workspace_dir(self, name: str) -> pathlib.Path:
        """A workspace: its box (/sandbox) and tmp (/tmp), the slot's own."""
        path = self.root / name
        path.mkdir(mode=0o700)
        for sub in ("box", "tmp"):
            (path / sub).mkdir(mode=0o700)
            self.own(path / sub)
        self.own(path)
        return path


async def make_slot(index: int, instance: pathlib.Path, mechanism: Mechanism, base_uid: int,
                    taken: set[int]) -> Slot:
    """Slot `index` of the instance in `instance`: its limits, and as root its uid and tmpfs."""
    uid, uid_lock = claim_uid(base_uid, taken) if os.geteuid() == 0 else (os.getuid(), None)
    try:
        limits = mechanism.slot(index)
    except LimitsError:
        if uid_lock is not None:
            os.close(uid_lock)
        raise
    root = instance / f"slot{index}"
    root.mkdir(mode=0o711)
    if uid_lock is not None:
        try:
            await _mount_tmpfs(root)
        except SandboxError:
            root.rmdir()
            limits.remove()
            os.close(uid_lock)
            raise
    return Slot(index, uid, uid_lock, root, limits)


async def close_slot(slot: Slot) -> None:
    """Stop its zygotes, kill what is left, release its limits, tmpfs and uid."""
    await _close_zygotes(slot)
    try:
        slot.limits.remove()
    except LimitsError as e:
        log.error("slot %d: %s", slot.index, e)
    if slot.uid_lock is None:
        try:
            await asyncio.to_thread(remove_tree, slot.root)
        except OSError as e:
            log.error("slot %d: cannot remove %s: %s", slot.index, slot.root, e)
    else:
        if await _umount(slot.root):
            with contextlib.suppress(OSError):
                slot.root.rmdir()
        os.close(slot.uid_lock)


async def remove_workspace(slot: Slot, path: pathlib.Path) -> None:
    """Remove a finished workspace of `slot`: on the loop when it is small (the usual case), else in a thread, since a
    program may leave many thousands of files behind and the loop must not wait for them. Never raises for what the
    program left: its verdict is what its run did. A workspace that cannot be removed renews the slot's workspaces."""
    try:
        if _fewer_entries_than(path, SMALL_WORKSPACE):
            remove_tree(path)
        else:
            await asyncio.to_thread(remove_tree, path)
        return
    except OSError as e:
        log.error("slot %d: cannot remove the workspace %s (%s): renewing the slot's workspaces", slot.index, path, e)
    try:
        await renew_workspaces(slot)
    except SandboxError as e:
        log.error("slot %d: %s; renewed again before its next workspace", slot.index, e)
        slot.dirty = True


async def renew_workspaces(slot: Slot) -> None:
    """A fresh directory of workspaces for the slot, in place of one that holds what could not be removed: its zygotes
    stopped (they see the old one), as root the tmpfs dropped whole and a fresh one mounted, without root the
    directory moved aside in the instance's (the instance's removal tries again) and a fresh one made. Raises
    SandboxError where that failed (the slot stays dirty)."""
    slot.dirty = True
    await _close_zygotes(slot)
    if slot.own_uid:
        if os.path.ismount(slot.root) and not await _umount(slot.root):
            raise SandboxError(f"cannot drop the tmpfs of slot {slot.index}")
        await _mount_tmpfs(slot.root)
    else:
        try:
            if slot.root.exists():
                slot.root.rename(slot.root.with_name(f"{slot.root.name}-dirty-{time.monotonic_ns()}"))
            slot.root.mkdir(mode=0o711)
        except OSError as e:
            raise SandboxError(f"cannot renew the workspaces of slot {slot.index}: {e}") from e
    log.warning("slot %d: its workspaces renewed", slot.index)
    slot.dirty = False


def claim_uid(base_uid: int, taken: set[int]) -> tuple[int, int]:
    """The first uid from base_uid up that no other process holds (a flock, released if we die)."""
    UID_LOCK_DIR.mkdir(parents=True, exist_ok=True)
    for uid in range(base_uid, base_uid + UID_SEARCH):
        if uid in taken:
            continue
        fd = os.open(UID_LOCK_DIR / f"uid-{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return uid, fd
    raise SandboxError(f"no free sandbox uid in {base_uid}..{base_uid + UID_SEARCH}")


def kill_quietly(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def _fewer_entries_than(path: pathlib.Path, limit: int) -> bool:
    """Whether the tree under `path` holds fewer than `limit` entries (looking at no more than that many); a
    directory it cannot read (too deep for a path, chmod 000) may hide any number: not fewer."""
    seen, stack = 0, [path]
    while stack:
        try:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    seen += 1
                    if seen >= limit:
                        return False
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
        except OSError:
            return False
    return True


async def _close_zygotes(slot: Slot) -> None:
    for zygote in slot.zygotes.values():
        await zygote.close()
    slot.zygotes.clear()


async def _mount_tmpfs(root: pathlib.Path) -> None:
    """A fresh tmpfs of the slot's on `root`. Raises SandboxError."""
    mount = await asyncio.create_subprocess_exec(
        "mount", "-t", "tmpfs", "-o", f"size={SLOT_TMPFS_MB}m,mode=0711,nosuid,nodev", "tmpfs", str(root),
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, err = await mount.communicate()
    if mount.returncode != 0:
        raise SandboxError(f"cannot mount a tmpfs on {root}: {err.decode(errors='replace').strip()}")


async def _umount(path: pathlib.Path) -> bool:
    """Drop the tmpfs on `path` whole, with whatever is mounted under it (detached now, freed once nothing holds it:
    the slot's processes are gone by then); whether it was."""
    proc = await asyncio.create_subprocess_exec("umount", "--lazy", str(path), stdout=subprocess.DEVNULL,
                                                stderr=subprocess.PIPE)
    _, err = await proc.communicate()
    if proc.returncode != 0:
        log.error("umount %s: %s", path, err.decode(errors="replace").strip())
        return False
    return True
