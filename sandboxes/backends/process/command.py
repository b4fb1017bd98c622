"""The argv of every sandboxed process: the launcher (launcher.c: cgroups, rlimits, the slot's uid), then bubblewrap's
namespaces and mounts, then the program. Spawned runs and zygotes share the prefix; each adds its own mounts.
"""

from __future__ import annotations

import os
import pathlib
import shutil
from collections.abc import Sequence

from sandboxes.policy import FIXED_PATH

SANDBOX_DIR = "/sandbox"
# The devices programs use, bound one by one: bwrap's --dev (a /dev tmpfs, more nodes, devpts) costs
# ~1.1 ms more CPU per run (measured) and adds only ttys and /dev/full. /dev/shm (POSIX semaphores,
# multiprocessing) is a tmpfs of its own, charged to the sandbox's memory cgroup.
_DEVICES = ("null", "zero", "random", "urandom")
_STD_LINKS = (("/proc/self/fd", "/dev/fd"), ("/proc/self/fd/0", "/dev/stdin"), ("/proc/self/fd/1", "/dev/stdout"),
              ("/proc/self/fd/2", "/dev/stderr"))


def which(program: str) -> str | None:
    """Where `program` is: as given when it is relative to the workspace or absolute, else on the fixed PATH."""
    if program.startswith("./"):
        return program
    if os.path.isabs(program):
        return program if os.access(program, os.X_OK) else None
    return shutil.which(program, path=FIXED_PATH)


def system_mounts() -> list[str]:
    """Read-only system directories (merged-/usr symlinks kept as symlinks), fresh /proc, minimal /dev."""
    args = ["--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = pathlib.Path("/", name)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    args += ["--proc", "/proc"]
    for device in _DEVICES:
        args += ["--dev-bind", f"/dev/{device}", f"/dev/{device}"]
    for target, link in _STD_LINKS:
        args += ["--symlink", target, link]
    return [*args, "--tmpfs", "/dev/shm"]


def rlimit_text(value: int | None) -> str:
    """A launcher limit: a number, or None as "unlimited"."""
    return "unlimited" if value is None else str(value)


class Commands:
    """The sandbox commands of one backend instance: its launcher, bwrap and pair, and the host's system mounts."""

    def __init__(self, launcher: str, bwrap: str, pair: str) -> None:
        self.launcher = launcher
        self.bwrap = bwrap
        self.pair = pair              # seen at sandboxes.split.PAIR in the runs that are a split's
        self.mounts = system_mounts()

    def sandbox(self, join: Sequence[str], rlimits: Sequence[int | None], uid: int, bwrap_options: Sequence[str],
                mounts: Sequence[str], workdir: str, argv: Sequence[str]) -> list[str]:
        """launcher JOIN... -- RLIMITS... UID -- bwrap (every namespace, the system read-only, `mounts`, the
        working directory `workdir`) -- ARGV."""
        return [
            self.launcher, *join, "--", *map(rlimit_text, rlimits), str(uid), "--",
            self.bwrap, "--unshare-all", "--unshare-user", "--die-with-parent", "--new-session", *bwrap_options,
            *self.mounts, *mounts, "--chdir", workdir, "--remount-ro", "/",
            "--", *argv,
        ]
