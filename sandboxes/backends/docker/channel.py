"""One line-oriented JSON conversation with a container's main process over the engine's attach stream.

Without a TTY the engine multiplexes the container's stdout and stderr into frames (8-byte header:
stream type, three zero bytes, big-endian length). stdout carries the answers, one JSON line each;
stderr is kept (last few KiB) to explain a dead container. Anything that is not one JSON object per
line, an early end of stream, or silence past the timeout is a ChannelError: the container is then
no longer trusted.
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct

HEADER = struct.Struct(">BxxxI")
STDOUT, STDERR = 1, 2
STDERR_KEEP = 4096
MAX_LINE = 256 << 20


class ChannelError(Exception):
    """The container's process died, went silent, or answered something that is not a JSON line."""


class Channel:
    def __init__(self, sock: socket.socket) -> None:
        sock.setblocking(False)
        self.sock = sock
        self.frames = bytearray()
        self.lines = bytearray()
        self.stderr = bytearray()
        self.closed = False

    async def request(self, message: dict, timeout_s: float) -> dict:
        loop = asyncio.get_running_loop()
        if self.closed:
            raise ChannelError("the channel is closed")
        try:
            await asyncio.wait_for(loop.sock_sendall(self.sock, json.dumps(message).encode() + b"\n"), timeout_s)
            line = await asyncio.wait_for(self._line(), timeout_s)
        except TimeoutError:
            raise ChannelError(f"no answer within {timeout_s:.1f}s") from None
        except OSError as exc:
            raise ChannelError(f"attach stream failed: {exc}") from exc
        try:
            answer = json.loads(line)
        except ValueError:
            raise ChannelError(f"answer is not JSON: {line[:200]!r}") from None
        if not isinstance(answer, dict):
            raise ChannelError(f"answer is not a JSON object: {line[:200]!r}")
        return answer

    async def _line(self) -> bytes:
        loop = asyncio.get_running_loop()
        while True:
            end = self.lines.find(b"\n")
            if end >= 0:
                line = bytes(self.lines[:end])
                del self.lines[: end + 1]
                return line
            if len(self.lines) > MAX_LINE:
                raise ChannelError("answer line too long")
            chunk = await loop.sock_recv(self.sock, 1 << 20)
            if not chunk:
                tail = self.stderr.decode("utf-8", "replace").strip()
                raise ChannelError("the container's process ended" + (f": {tail[-500:]}" if tail else ""))
            self.frames += chunk
            self._demux()

    def _demux(self) -> None:
        while len(self.frames) >= HEADER.size:
            kind, size = HEADER.unpack_from(self.frames)
            if len(self.frames) < HEADER.size + size:
                return
            payload = self.frames[HEADER.size: HEADER.size + size]
            del self.frames[: HEADER.size + size]
            if kind == STDOUT:
                self.lines += payload
            elif kind == STDERR:
                self.stderr = (self.stderr + payload)[-STDERR_KEEP:]
            else:
                raise ChannelError(f"unexpected attach frame type {kind}")

    def ended(self) -> bool:
        """Whether the stream has ended (the container's process is gone, or the channel closed), seen without a
        request: a waiting end of stream."""
        if self.closed:
            return True
        try:
            return self.sock.recv(1, socket.MSG_PEEK) == b""
        except BlockingIOError:
            return False
        except OSError:
            return True

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.sock.close()
