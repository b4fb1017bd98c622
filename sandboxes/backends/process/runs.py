"""The two kinds of run: spawned (the launcher, bubblewrap, then the program) and forked by a slot's zygote. Each says
how its program ended, the run's own account of what it used, and how to stop it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pathlib

from sandboxes import split
from sandboxes.backends.process.child import Child
from sandboxes.backends.process.limits import RLIMITS, RunMeter, Usage
from sandboxes.backends.process.slots import Slot, kill_quietly
from sandboxes.backends.process.streams import RunStreams
from sandboxes.backends.process.zygote import Answer, Zygote
from sandboxes.policy import SANDBOX_KILLED, Step

KILL_GRACE_S = 2.0              # after killing the program, how long bwrap gets to report before it dies too
KILL_AGAIN_S = 0.05             # a stopped run of a zygote is killed again this often until it has ended
REAPER = "/run/reaper"          # where a spawned run sees the launcher that is its init (`launcher --reap`)
SIGNAL_EXIT = 128               # an exit status of 128 + N: the program died of signal N


def step_rlimits(slot: Slot, step: Step, forked: bool, rlimits_only: bool) -> dict[str, int | None]:
    """Every rlimit of a step's processes, by RLIMITS name (None: unlimited). `rlimits_only` (no cgroup bounds the run,
    rlimit_slots.py): RLIMIT_DATA at the memory limit."""
    limits = step.limits
    found = {"cpu": step.cpu_rlimit_s, "fsize": limits.max_file_bytes, "nofile": limits.max_open_files,
             "nproc": slot.nproc(limits, forked), "as": step.address_space_bytes,
             "data": (limits.memory_mb << 20) if rlimits_only else None}
    assert found.keys() == RLIMITS.keys()
    return found


def _usage(cpu_ns: int, max_rss_kib: int) -> Usage:
    return Usage(cpu_ns, max_rss_kib << 10)


class Spawned:
    """A run started by exec (the launcher, bwrap, then the program) and bwrap's report of how it went."""

    def __init__(self, slot: Slot, command: list[str], step: Step, streams: RunStreams) -> None:
        self.slot = slot
        self.streams = streams
        self.usage: Usage | None = None
        self._status, status_w = os.pipe()
        self._report, report_w = os.pipe()
        try:
            for fd in (status_w, report_w):     # the server's uid, the program's own without root: no one may open
                os.fchmod(fd, 0)                # them again (a holder's /proc/PID/fd/N), only their holders write
            self.child = Child(command, dict(step.env), streams.child_fds, status_w, report_w)
        except OSError:
            os.close(self._status)
            os.close(self._report)
            raise
        finally:
            os.close(status_w)
            os.close(report_w)
        slot.limits.track(self.child.pid)

    def stop(self) -> None:
        """Kill everything under the launcher (bwrap, its init, the program); the launcher reaps them.

        Killing the launcher first would orphan their zombies to the host's init, where they would keep
        counting against the slot's pids limit. The launcher itself is killed only if it has not started
        bwrap yet, or does not exit soon after.
        """
        inner = [pid for pid in self.slot.strangers() if pid != self.child.pid]
        for pid in inner:
            kill_quietly(pid)
        if not inner:
            self.child.kill()
        asyncio.get_running_loop().call_later(KILL_GRACE_S, self.child.kill)

    async def finished(self) -> tuple[int | None, str]:
        """The program's exit status (128 + N when it died of signal N), as the sandbox's init reported it, or why
        there is none."""
        try:
            launcher = await self.child.wait()
            if launcher < 0 and self.streams.stop_reason is None:
                # Killed, and not by us (stop() kills it last): what it started may hold the run's pipes until the
                # backstop. Its sandbox died under the run (sandbox_deaths.py).
                self.streams.stop(SANDBOX_KILLED)
            await self.streams.done
            report = _read_status(self._status)
            ended = _read_status(self._report)
        finally:
            os.close(self._status)
            os.close(self._report)
        if "usage" in report:
            self.usage = _usage(*report["usage"])
        if "exec-error" in ended:
            return None, f"the program could not be started: {ended['exec-error']}"
        if "wait-status" in ended:
            status = ended["wait-status"]
            return (os.WEXITSTATUS(status) if os.WIFEXITED(status) else SIGNAL_EXIT + os.WTERMSIG(status)), ""
        if "exit-code" in report:     # bwrap saw its pid 1 end without a word: killed from outside
            return None, "the sandbox's init was killed from outside, and the program with its pid namespace"
        return None, ("the program could not be started" if "child-pid" in report
                      else "the sandbox failed before the program started")


class Forked:
    """A run forked by the slot's zygote (zygote_main.py), and how its program ended."""

    def __init__(self, slot: Slot, path: pathlib.Path, step: Step, streams: RunStreams, zygote: Zygote,
                 meter: RunMeter, rlimits: dict[str, int | None]) -> None:
        self.slot = slot
        self.streams = streams
        self.zygote = zygote
        self.loop = asyncio.get_running_loop()
        self.usage: Usage | None = None
        self._stopped_at: float | None = None
        script = len(zygote.prefix)
        if slot.own_uid:
            for fd in streams.child_fds:      # as the launcher does: a program may reopen them (/dev/stdin)
                os.fchown(fd, slot.uid, slot.uid)
        paired = split.unpaired(step)       # the zygote forks both sides: split, whether the program may fork
        argv = (paired[0] if paired else step).argv
        zygote.send({"workspace": path.name, "argv": [*zygote.prefix, *argv[script:]], "script": script,
                     "split": None if paired is None else paired[1],
                     "limits": {name: -1 if value is None else value for name, value in rlimits.items()}},
                    [*streams.child_fds, *meter.zygote_fds])
        self._answer = asyncio.ensure_future(zygote.answer())

    def stop(self) -> None:
        """Kill the run's processes (its init first takes the rest along), again until the zygote reports it ended:
        the init may not have been forked yet. A zygote that does not report within KILL_GRACE_S is killed."""
        if self._answer.done():
            return
        now = self.loop.time()
        if self._stopped_at is None:
            self._stopped_at = now
        if now - self._stopped_at > KILL_GRACE_S:
            self.zygote.kill()
            return
        for pid in self.slot.strangers():
            kill_quietly(pid)
        self.loop.call_later(KILL_AGAIN_S, self.stop)

    async def finished(self) -> tuple[int | None, str] | None:
        """The program's exit status (128 + N for signal N), or why there is none; None if the zygote died."""
        answer: Answer | None = await self._answer
        await self.streams.done
        if answer is None:
            return None
        if answer.usage is not None:
            self.usage = _usage(*answer.usage)
        if not answer.started:
            return None, f"the zygote could not start the run: {answer.error}"
        if answer.init_killed:
            return None, "the run's init was killed from outside, and the program with its pid namespace"
        return answer.exit_code, ""


def _read_status(fd: int) -> dict:
    """Merge the JSON status lines: bwrap's ({"child-pid": ...} at start, {"exit-code": ...} at exit), then the
    launcher's ({"usage": ...} once everything is reaped)."""
    os.set_blocking(fd, False)
    chunks = []
    with contextlib.suppress(BlockingIOError):
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
    report: dict = {}
    for line in b"".join(chunks).splitlines():
        with contextlib.suppress(ValueError):
            report.update(json.loads(line))
    return report
