"""The standard streams of one sandboxed run, pumped by the event loop straight from pipes.

asyncio's subprocess transports cost more of the server's CPU per run than the run needs (protocol objects,
a transport per pipe, a child-watcher thread): here stdin is written as its pipe drains, stdout and stderr are read
into buffers up to a cap (past it the run is stopped: "output"), and `done` resolves once both have reached EOF.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable

READ_CHUNK = 1 << 16


class RunStreams:
    """Pipes for one run: the child's ends go to the sandbox (`child_fds`), the server's are pumped here."""

    def __init__(self, stdin: bytes, max_output_bytes: int) -> None:
        self.loop = asyncio.get_running_loop()
        self.max_bytes = max_output_bytes
        self.stop_reason: str | None = None
        self.on_stop: Callable[[], None] = lambda: None
        self.ended = False              # set by whoever saw the run's processes end
        self.done: asyncio.Future[None] = self.loop.create_future()
        self._stdin = memoryview(stdin)
        stdin_r, self._stdin_w = os.pipe()
        self._stdout_r, stdout_w = os.pipe()
        self._stderr_r, stderr_w = os.pipe()
        self.child_fds: tuple[int, int, int] | None = (stdin_r, stdout_w, stderr_w)
        self._buffers = {self._stdout_r: bytearray(), self._stderr_r: bytearray()}
        self._open: set[int] = {self._stdin_w, self._stdout_r, self._stderr_r}
        self._waiting_to_write = False

    @property
    def stdout(self) -> bytes:
        return bytes(self._buffers[self._stdout_r])

    @property
    def stderr(self) -> bytes:
        return bytes(self._buffers[self._stderr_r])

    def start(self) -> None:
        """The child holds its ends now: close ours of them, feed stdin, collect the outputs."""
        self.close_child_fds()
        for fd in (self._stdout_r, self._stderr_r):
            os.set_blocking(fd, False)
            self.loop.add_reader(fd, self._read, fd)
        os.set_blocking(self._stdin_w, False)
        self._write()

    def close_child_fds(self) -> None:
        for fd in self.child_fds or ():
            os.close(fd)
        self.child_fds = None

    def stop(self, reason: str) -> None:
        """Ask for the run to be stopped (the first reason counts), unless it has ended: a program that closed its
        outputs may well still be running."""
        if self.stop_reason is None and not self.ended:
            self.stop_reason = reason
            self.on_stop()

    def _write(self) -> None:
        try:
            while self._stdin:
                written = os.write(self._stdin_w, self._stdin[:READ_CHUNK])
                self._stdin = self._stdin[written:]
        except BlockingIOError:
            if not self._waiting_to_write:
                self._waiting_to_write = True
                self.loop.add_writer(self._stdin_w, self._write)
            return
        except OSError:      # the program closed its stdin or exited: the rest is not wanted
            pass
        if self._waiting_to_write:
            self.loop.remove_writer(self._stdin_w)
        self._close(self._stdin_w)

    def _read(self, fd: int) -> None:
        try:
            data = os.read(fd, READ_CHUNK)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.loop.remove_reader(fd)
            self._close(fd)
            if self._stdout_r not in self._open and self._stderr_r not in self._open and not self.done.done():
                self.done.set_result(None)
            return
        buffer = self._buffers[fd]
        room = self.max_bytes - len(buffer)
        buffer += data[:room] if room > 0 else b""
        if len(data) > room:
            self.stop("output")

    def _close(self, fd: int) -> None:
        if fd in self._open:
            self._open.discard(fd)
            os.close(fd)

    def close(self) -> None:
        """Release every pipe still open (a run that ended early, or was cancelled)."""
        self.close_child_fds()
        for fd in list(self._open):
            self.loop.remove_reader(fd)
            self.loop.remove_writer(fd)
            self._close(fd)
        if not self.done.done():
            self.done.cancel()
