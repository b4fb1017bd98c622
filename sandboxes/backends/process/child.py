"""A process the server starts: posix_spawn (vfork and exec, so the server's memory is never copied) and a pidfd that
the event loop watches while someone waits for it (no child-watcher thread per process, no race with a reused pid).
Nothing here is bound to one event loop: a zygote's launcher outlives the loop that started it in the tests."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Sequence

EXTRA_FD = 3    # the descriptors besides the standard streams a child gets (the launcher closes the rest): 3, and
REPORT_FD = 4   # a spawned run's report pipe (launcher.c's `--reap`)


class Child:
    """A spawned process and, once reaped, its exit status (as subprocess reports it: -N for signal N)."""

    def __init__(self, argv: Sequence[str], env: dict[str, str], std_fds: Sequence[int], extra_fd: int,
                 report_fd: int | None = None) -> None:
        actions = [(os.POSIX_SPAWN_DUP2, fd, target) for target, fd in enumerate(std_fds)]
        actions.append((os.POSIX_SPAWN_DUP2, extra_fd, EXTRA_FD))
        if report_fd is not None:
            actions.append((os.POSIX_SPAWN_DUP2, report_fd, REPORT_FD))
        self.pid = os.posix_spawn(argv[0], list(argv), env, file_actions=actions)
        self._pidfd: int | None = os.pidfd_open(self.pid)
        self._returncode: int | None = None

    @property
    def returncode(self) -> int | None:
        """Its exit status if it has exited (it is reaped then), else None."""
        if self._pidfd is not None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid != 0:
                self._returncode = os.waitstatus_to_exitcode(status)
                os.close(self._pidfd)
                self._pidfd = None
        return self._returncode

    async def wait(self) -> int:
        while (code := self.returncode) is None:
            loop = asyncio.get_running_loop()
            readable = loop.create_future()
            loop.add_reader(self._pidfd, _resolve, readable)
            try:
                await readable
            finally:
                loop.remove_reader(self._pidfd)
        return code

    def kill(self) -> None:
        """SIGKILL it, unless it was already reaped (the pidfd makes this safe against a reused pid)."""
        if self._pidfd is not None:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
