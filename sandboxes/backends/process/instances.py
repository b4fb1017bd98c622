"""Host resources of a process-backend instance, and cleanup of those a dead instance left behind.

An instance owns a directory (its slots' tmpfs mounts live under it) and same-named cgroups. A server
killed before close() would leak them, and the tmpfs contents keep holding memory. So each instance
holds an flock on `<dir>.lock` (taken before the directory exists); at start, every other instance
directory whose lock is free belongs to a dead instance and is unmounted, emptied and removed. What cannot be removed
(sandboxes/trees.py says what can) is logged and left, with its lock, for the next start to try again: never a reason
not to start.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import pathlib
import subprocess
import tempfile
import uuid

from sandboxes.backends.process import cgroup_v1, cgroup_v2
from sandboxes.trees import remove_tree

log = logging.getLogger(__name__)

PREFIX = "reward-sbx-"


class InstanceDir:
    """A locked, private root directory for one backend instance."""

    def __init__(self) -> None:
        base = pathlib.Path(tempfile.gettempdir())
        name = PREFIX + uuid.uuid4().hex[:12]
        self.lock_fd = os.open(base / f"{name}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fcntl.flock(self.lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        self.path = base / name
        self.path.mkdir(mode=0o711)
        self.path.chmod(0o711)

    @property
    def name(self) -> str:
        return self.path.name

    def release(self) -> None:
        """Remove the directory (its slots' tmpfs already unmounted) and its lock; where something in it cannot be
        removed, the lock stays, so that the next start takes it for a dead instance's and tries again."""
        try:
            remove_tree(self.path)
        except OSError as e:
            log.error("cannot remove the sandbox instance %s: %s", self.path, e)
        else:
            with contextlib.suppress(OSError):
                pathlib.Path(f"{self.path}.lock").unlink()
        os.close(self.lock_fd)


def reap_dead_instances() -> None:
    """Unmount and remove what instances that died without close() left behind; never raises for what is left."""
    for lock_path in pathlib.Path(tempfile.gettempdir()).glob(f"{PREFIX}*.lock"):
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CLOEXEC)
        except OSError:     # gone, or another user's instance
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue  # alive
        try:
            _remove(lock_path.with_suffix(""))
            lock_path.unlink(missing_ok=True)
        except OSError as e:
            log.error("cannot remove the leftovers of a dead sandbox instance %s (left for the next start): %s",
                      lock_path.with_suffix(""), e)
        finally:
            os.close(fd)


def _remove(root: pathlib.Path) -> None:
    """Its cgroups, its slots' tmpfs, then its directory (the binaries, the zygote's program, toolchain artifacts, the
    workspaces of a server without root), never through a mount that is still there. Raises OSError."""
    log.warning("removing leftovers of a dead sandbox instance: %s", root)
    cgroup_v1.remove_leftovers(root.name)
    cgroup_v2.remove_leftovers(root.name)
    for slot in root.glob("slot*"):
        if os.path.ismount(slot):
            done = subprocess.run(["umount", "--lazy", str(slot)], capture_output=True, check=False)
            if done.returncode != 0:
                log.error("cannot unmount %s: %s", slot, done.stderr.decode(errors="replace").strip())
    remove_tree(root)

