"""One sandboxed process from start to verdict: limits set, started (spawned or forked), fed, watched against its CPU
budget and wall clock, waited for, swept, measured and classified by the policy. Never leaves a process behind."""

from __future__ import annotations

import asyncio
import logging
import os
import pathlib
import signal

from sandboxes.backends.process.child import EXTRA_FD
from sandboxes.backends.process.command import SANDBOX_DIR, Commands, which
from sandboxes.backends.process.limits import LimitsError, Mechanism, MemoryInUse, RunMeter, tree_cpu_s
from sandboxes.backends.process.runs import KILL_GRACE_S, REAPER, SIGNAL_EXIT, Forked, Spawned, step_rlimits
from sandboxes.backends.process.slots import Slot
from sandboxes.backends.process.streams import RunStreams
from sandboxes.backends.process.zygote import Zygote
from sandboxes.policy import Ending, Step, classify, cpu_check_delay
from sandboxes.results import Limits, RunResult, RunStatus
from sandboxes.split import PAIR
from sandboxes.toolchain_artifacts import MOUNT as ARTIFACTS_MOUNT
from sandboxes.trees import has_file_at_least

log = logging.getLogger(__name__)

_SIGNALS = frozenset(signal.valid_signals())
_NS = 1e9


class _CpuWatch:
    """Stops a run once its processes together have spent the step's CPU budget (where cgroups count it live)."""

    def __init__(self, meter: RunMeter, budget_s: float, streams: RunStreams) -> None:
        self.meter = meter
        self.budget_s = budget_s
        self.streams = streams
        self.loop = asyncio.get_running_loop()
        self.handle = self.loop.call_later(cpu_check_delay(budget_s), self._check)

    def _check(self) -> None:
        try:
            left = self.budget_s - self.meter.cpu_ns() / _NS
        except OSError as e:  # the reading after the run reports it as a sandbox error
            log.error("cannot read the CPU counter: %s", e)
            return
        if left < 0:
            self.streams.stop("cpu")
        else:
            self.handle = self.loop.call_later(cpu_check_delay(left), self._check)

    def cancel(self) -> None:
        self.handle.cancel()


class Supervisor:
    """Executes steps in the slots of one backend instance."""

    def __init__(self, commands: Commands, mechanism: Mechanism) -> None:
        self.commands = commands
        self.mechanism = mechanism

    def rlimits(self, slot: Slot, step: Step, forked: bool) -> dict[str, int | None]:
        return step_rlimits(slot, step, forked, self.mechanism.rlimits_only)

    async def execute(self, slot: Slot, path: pathlib.Path, step: Step, stdin: bytes, *, deadline: float | None,
                      zygote: Zygote | None = None, artifact_tree: pathlib.Path | None = None) -> RunResult | None:
        """Run the step in a fresh sandbox of `slot` with /sandbox = path/box and `artifact_tree` (its language's
        toolchain artifacts) at ARTIFACTS_MOUNT, forked by `zygote` if given; never leaves a process behind. None: the
        zygote died under the run (not the program's doing; run it again).

        The sandbox runs in a shielded task: a caller that is cancelled (even mid-spawn) stops the
        program the same way a timeout does, and waits for it to be gone before the cancellation goes on.
        """
        loop = asyncio.get_running_loop()
        budget, cut_by = step.wall_s, "wall"
        if deadline is not None:
            if deadline <= loop.time():
                return RunResult(RunStatus.DEADLINE, None, b"", b"", 0.0, "the deadline passed before the run")
            if deadline - loop.time() < budget:
                budget, cut_by = deadline - loop.time(), "deadline"
        streams = RunStreams(stdin, step.limits.max_output_bytes)
        inner = asyncio.ensure_future(self._supervise(slot, path, step, streams, budget, cut_by, zygote, artifact_tree))
        try:
            outcome = await asyncio.shield(inner)
        except asyncio.CancelledError:
            streams.stop("cancelled")
            await asyncio.wait({inner}, timeout=KILL_GRACE_S + 5)
            raise
        if not isinstance(outcome, tuple):
            return outcome
        ending, exit_code, elapsed = outcome
        status, detail = classify(step, ending, streams.stderr)
        return RunResult(status, exit_code, streams.stdout, streams.stderr, elapsed, detail, ending.cpu_s,
                         ending.peak_memory_bytes, ending.signal)

    async def _supervise(self, slot: Slot, path: pathlib.Path, step: Step, streams: RunStreams, budget: float,
                         cut_by: str, zygote: Zygote | None,
                         artifact_tree: pathlib.Path | None) -> RunResult | tuple[Ending, int | None, float] | None:
        """Start, feed, watch, wait and clean up: how the run ended, its exit status and the time it took."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        forked = zygote is not None
        try:
            try:
                if _files_exceed_memory(slot, step.limits):
                    raise MemoryInUse(f"the files in slot {slot.index}'s workspace exceed {step.limits.memory_mb} MB")
                slot.set_limits(step.limits, forked)
                meter = slot.limits.begin()
            except MemoryInUse as e:   # the program's build or run wrote them: its own limit, never a sandbox error
                log.info("slot %d: %s", slot.index, e)
                return Ending(files_over_memory=True), None, loop.time() - started
            except (LimitsError, OSError) as e:
                return sandbox_error(f"limits: {e}", loop.time() - started)
            try:
                run = (Forked(slot, path, step, streams, zygote, meter, self.rlimits(slot, step, forked)) if forked
                       else Spawned(slot, self._command(slot, path, step, artifact_tree, meter), step, streams))
            except OSError as e:
                meter.close()
                if zygote is not None:     # it is gone: replace it and run again
                    log.warning("slot %d: cannot hand the zygote a run: %s", slot.index, e)
                    zygote.kill()
                    return None
                return sandbox_error(f"cannot spawn the sandbox: {e}", loop.time() - started)
            counted_live = meter.cpu_ns() is not None
            spent_when_stopped: list[float] = []

            def stop() -> None:
                if not counted_live:
                    spent_when_stopped.append(tree_cpu_s(slot.strangers()))
                run.stop()

            streams.on_stop = stop
            streams.start()
            if streams.stop_reason is not None:  # cancelled while spawning
                stop()
            timer = loop.call_later(budget, streams.stop, cut_by)
            live = step.cpu_budget_s is not None and counted_live
            watch = _CpuWatch(meter, step.cpu_budget_s, streams) if live else None
            try:
                ended = await run.finished()
                streams.ended = True
            finally:
                timer.cancel()
                if watch is not None:
                    watch.cancel()
        finally:
            streams.close()
        elapsed = loop.time() - started
        try:
            await slot.sweep()
            measured = meter.finish(run.usage)
        except (LimitsError, OSError) as e:
            return sandbox_error(f"limits: {e}", elapsed)
        finally:
            meter.close()
        if ended is None:          # the zygote died
            if streams.stop_reason is None and not measured.oom_killed:
                return None
            ended = (None, "the zygote died")
        exit_code, failure = ended
        cpu_s = max((s for s in (measured.cpu_s, *spent_when_stopped[:1]) if s is not None), default=None)
        ending = _ending(streams.stop_reason, measured.oom_killed, exit_code, failure, path, step.limits,
                         {"cpu_s": cpu_s, "elapsed_s": elapsed, "peak_memory_bytes": measured.peak_bytes})
        return ending, exit_code, elapsed

    def _command(self, slot: Slot, path: pathlib.Path, step: Step, artifact_tree: pathlib.Path | None,
                 meter: RunMeter) -> list[str]:
        mounts = ["--bind", str(path / "box"), SANDBOX_DIR, "--bind", str(path / "tmp"), "/tmp"]
        if artifact_tree is not None:
            mounts += ["--ro-bind", str(artifact_tree), ARTIFACTS_MOUNT]
        mounts += ["--ro-bind", self.commands.launcher, REAPER, "--ro-bind", self.commands.pair, PAIR]
        argv = [REAPER, "--reap", which(step.argv[0]) or step.argv[0], *step.argv[1:]]
        return self.commands.sandbox(
            meter.join, list(self.rlimits(slot, step, forked=False).values()), slot.uid,
            ["--disable-userns", "--cap-drop", "ALL", "--json-status-fd", str(EXTRA_FD), "--as-pid-1"], mounts,
            SANDBOX_DIR, argv)


def _ending(stop_reason: str | None, oomed: bool, exit_code: int | None, failure: str, path: pathlib.Path,
            limits: Limits, measured: dict[str, float | int | None]) -> Ending:
    """The init's exit status as an Ending: it exits 128 + N when the program died of signal N."""
    if stop_reason is not None:
        return Ending(stopped=stop_reason, oom_killed=oomed, **measured)
    if exit_code is None:
        return Ending(oom_killed=oomed, sandbox_failure=failure, **measured)
    died_of = exit_code - SIGNAL_EXIT if exit_code > SIGNAL_EXIT and exit_code - SIGNAL_EXIT in _SIGNALS else None
    return Ending(oom_killed=oomed, exit_code=None if died_of else exit_code, signal=died_of,
                  file_limit_hit=exit_code != 0 and has_file_at_least(path, limits.max_file_bytes), **measured)


def _files_exceed_memory(slot: Slot, limits: Limits) -> bool:
    """Whether the slot's workspaces already hold the step's memory limit, where they are a tmpfs of the slot's own
    (as root), which its memory group is charged for: the step could not start under it (cgroup v2 would OOM-kill the
    slot's residents trying)."""
    if not slot.own_uid:
        return False
    fs = os.statvfs(slot.root)
    return (fs.f_blocks - fs.f_bfree) * fs.f_frsize >= limits.memory_mb << 20


def sandbox_error(detail: str, elapsed: float) -> RunResult:
    log.error("sandbox error: %s", detail)
    return RunResult(RunStatus.SANDBOX_ERROR, None, b"", b"", elapsed, detail)
