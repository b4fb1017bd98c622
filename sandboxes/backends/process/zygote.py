"""A warm interpreter per slot and language, started in the slot's sandbox; each run of that language forks from it.

Starting Python costs a run more CPU than most programs do (interpreter start-up, imports, then a finalisation that
tears the heap down); a fork of an interpreter that did it once, isolated, costs about a fifth of that here. The
zygote (zygote_main.py, which says what a run gets) lives in its slot like a run: the slot's uid and cgroups,
bubblewrap's namespaces, no network, read-only system. It counts on every step of its slot: its processes
(`resident_pids`) and its anonymous memory (`resident_bytes`) are added to the slot's limits, so that a run gets what
it got before. The backend replaces a zygote that dies, and runs again, once, a run it took down with it: never the
program's fault.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import socket
from collections.abc import Sequence

from sandboxes.backend import SandboxError
from sandboxes.backends.process.child import Child

log = logging.getLogger(__name__)

SCRIPT_DIR = "/tmp"                  # where its program, the runs' init (run_init.c) and pair's library are bound
SCRIPT = f"{SCRIPT_DIR}/zygote.py"   # in the sandbox (its sys.path[0]); each run's /tmp hides them
INIT = f"{SCRIPT_DIR}/run-init"
PAIR_LIBRARY = f"{SCRIPT_DIR}/libpair.so"     # sandboxes/split/pair.c's confinement
CAPABILITIES = ("CAP_SYS_ADMIN", "CAP_SETPCAP", "CAP_SYS_RESOURCE")   # in its own user namespace only
START_TIMEOUT_S = 60.0
LOG_LIMIT = 4000                      # characters of a zygote's own output kept for the log


@dataclasses.dataclass(frozen=True)
class Answer:
    """How a run's program ended, as the zygote saw it."""

    started: bool                     # the program's first line was reached
    error: str = ""                   # why not
    exit_code: int | None = None      # its exit status, 128 + N for signal N (as a spawned run's init reports it)
    usage: tuple[int, int] | None = None  # CPU ns of the run's whole tree and its largest process's max RSS (KiB)
    init_killed: bool = False         # the run's init was killed from outside: the program died with its namespace


class Zygote:
    """One warm interpreter: `send` hands it a run, `answer` says how it ended, `kill` ends it and all under it."""

    def __init__(self, child: Child, ctrl: socket.socket, prefix: tuple[str, ...], env: dict[str, str],
                 output: int) -> None:
        self.child = child
        self.ctrl = ctrl
        self.prefix = prefix
        self.env = env
        self.resident_pids: frozenset[int] = frozenset()
        self.resident_bytes = 0
        self._output_fd = output
        self._output = bytearray()
        os.set_blocking(output, False)

    @classmethod
    async def start(cls, argv: Sequence[str], env: dict[str, str], prefix: tuple[str, ...]) -> Zygote:
        """Spawn `argv` (the launcher, bubblewrap, then the interpreter on SCRIPT) and wait until it serves."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        stdin_r, stdin_w = os.pipe()
        output_r, output_w = os.pipe()
        try:
            child = Child(argv, env, (stdin_r, output_w, output_w), theirs.fileno())
        except OSError as e:
            for fd in (stdin_r, stdin_w, output_r, output_w):
                os.close(fd)
            raise SandboxError(f"cannot spawn the zygote: {e}") from e
        finally:
            theirs.close()
        for fd in (stdin_r, stdin_w, output_w):
            os.close(fd)
        ours.setblocking(False)
        zygote = cls(child, ours, prefix, env, output_r)
        try:
            ready = await asyncio.wait_for(asyncio.get_running_loop().sock_recv(ours, 64), START_TIMEOUT_S)
        except (TimeoutError, OSError) as e:
            ready = f"{e!r}".encode()
        if ready != b"ready":
            await zygote.close()
            raise SandboxError(f"the zygote did not start ({ready!r}): {zygote.output()}")
        return zygote

    def serves(self, prefix: tuple[str, ...], env: dict[str, str]) -> bool:
        """Whether a run of this interpreter and flags, in this environment, can be its fork."""
        return prefix == self.prefix and env == self.env

    @property
    def alive(self) -> bool:
        return self.child.returncode is None and self.ctrl.fileno() >= 0

    def send(self, request: dict, fds: Sequence[int]) -> None:
        """Hand it one run: the request and the run's stdin, stdout and stderr (OSError: it is gone)."""
        socket.send_fds(self.ctrl, [json.dumps(request).encode()], list(fds))

    async def answer(self) -> Answer | None:
        """How the run it was handed ended; None if the zygote died meanwhile (it is killed for good)."""
        try:
            reply = await asyncio.get_running_loop().sock_recv(self.ctrl, 1 << 16)
        except OSError as e:
            log.warning("zygote %d: %s", self.child.pid, e)
            reply = b""
        self.output()
        if not reply:
            self.kill()
            return None
        return Answer(**json.loads(reply))

    def kill(self) -> None:
        """The launcher's death takes bubblewrap, the zygote (pid 1 of its namespace) and every run along."""
        self.child.kill()

    def output(self) -> str:
        """What the zygote wrote itself (nothing, unless it failed), logged as it comes in."""
        if self._output_fd >= 0:
            with contextlib.suppress(BlockingIOError):
                while chunk := os.read(self._output_fd, 1 << 16):
                    self._output += chunk
                    del self._output[:-LOG_LIMIT]
                    log.warning("zygote %d: %s", self.child.pid, chunk.decode(errors="replace").rstrip())
        return self._output.decode(errors="replace")

    async def close(self) -> None:
        """Stop it and wait for its launcher, which reaps everything else."""
        self.kill()
        await self.child.wait()
        self.output()
        if self._output_fd >= 0:
            os.close(self._output_fd)
            self._output_fd = -1
        self.ctrl.close()
