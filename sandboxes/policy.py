"""Sandbox policy: what every compile and run may use, and what the way it ended means.

Backends only execute a `Step` under the limits it carries and report how the process ended (`Ending`);
the rules live here once, so that the process and docker backends (and any third one) give the same
verdict and the same detail for the same program. Standard library only: the docker images carry this
package next to their runner, whose Agnostics harness classifies with these very rules.

A run's time limit is CPU time, all its processes together: the wall clock depends on what the
neighbouring slots do, the CPU time a program needs does not. A wall-clock backstop, far above any
honest run's, catches programs that wait instead of computing. Compiles keep a wall-clock limit:
compilers are multi-threaded and their CPU time says little about whether they hang.
"""

from __future__ import annotations

import dataclasses
import math
import os
import signal
from collections.abc import Mapping

from sandboxes.languages import Language
from sandboxes.results import Limits, RunStatus

FIXED_PATH = "/usr/local/bin:/usr/bin:/bin"
BASE_ENV: Mapping[str, str] = {"PATH": FIXED_PATH, "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8"}
# Compilers are multi-threaded (javac, kotlinc, go, rustc + linker) and write large objects; a compile is
# bounded by its wall clock, not by CPU time.
COMPILE_PROCESSES = 512
COMPILE_OPEN_FILES = 4096
COMPILE_FILE_BYTES = 512 << 20
COMPILE_OUTPUT_BYTES = 1 << 20
# A run may take three times its CPU budget plus a second on the wall clock: a program that uses its whole
# budget still ends by its CPU time while it gets a third of a core (a quarter for budgets up to 1 s), e.g.
# `serve --workers` at three times the core count, all busy.
WALL_BACKSTOP_FACTOR = 3
WALL_BACKSTOP_EXTRA_S = 1.0
# The backend reads the CPU counter when the budget could first be spent, with every CPU busy (at least
# this far apart): a few reads per run, and an overshoot of at most this times the CPU count.
CPU_CHECK_MIN_S = 0.01


@dataclasses.dataclass(frozen=True)
class Step:
    """One sandboxed process (and whatever it starts), exactly as a backend must execute it."""

    argv: tuple[str, ...]
    env: Mapping[str, str]
    limits: Limits
    wall_s: float                    # the backend stops the step after this long on the wall clock
    cpu_budget_s: float | None       # CPU seconds all its processes together may use; None: no budget
    cpu_rlimit_s: int | None         # each process's RLIMIT_CPU soft limit (hard = soft + 1: SIGXCPU marks it)
    address_space_bytes: int | None  # RLIMIT_AS; None: none (it breaks the JVM, node, Go, rustc, mono)
    failure_markers: tuple[str, ...] = ()
    memory_markers: tuple[str, ...] = ()
    setup_failed_exit: int | None = None   # an exit status that only the sandbox's own setup gives (sandboxes/split)


@dataclasses.dataclass(frozen=True)
class Ending:
    """How a step's process ended, as the backend saw it."""

    stopped: str | None = None       # we stopped it: "cpu", "wall", "deadline", "cancelled", "output" or
                                     # SANDBOX_KILLED
    oom_killed: bool = False         # the memory cgroup's OOM killer struck during the step
    exit_code: int | None = None     # normal exit status
    signal: int | None = None        # the signal that killed it
    sandbox_failure: str = ""        # the sandbox itself failed: why (no exit status then)
    file_limit_hit: bool = False     # a file reached the file-size limit
    cpu_s: float | None = None       # CPU seconds all the step's processes used; None: not measured
    elapsed_s: float | None = None   # wall-clock seconds it ran; None: not measured
    peak_memory_bytes: int | None = None  # its memory high-water mark (not classified: reported)
    files_over_memory: bool = False  # not started: the files in its workspace already hold its memory limit


def compile_step(language: Language, source: str) -> Step | None:
    """The compile of `source`, or None for an interpreted language."""
    if language.compile is None:
        return None
    limits = Limits(timeout_s=language.compile_timeout_s, memory_mb=language.compile_memory_mb,
                    max_processes=COMPILE_PROCESSES, max_file_bytes=COMPILE_FILE_BYTES,
                    max_output_bytes=COMPILE_OUTPUT_BYTES, max_open_files=COMPILE_OPEN_FILES)
    argv = language.render(language.compile, source, language.compile_memory_mb)
    return Step(tuple(argv), {**BASE_ENV, **language.env}, limits, wall_s=limits.timeout_s, cpu_budget_s=None,
                cpu_rlimit_s=None, address_space_bytes=None)


def run_step(language: Language, source: str, limits: Limits) -> Step:
    """One run of the (compiled) program: `timeout_s` of CPU time for all its processes together (and for
    each one as an rlimit, which stops a lone spinning process without a look at the counter), the wall-clock
    backstop, and the table's markers."""
    argv = language.render(language.run, source, limits.memory_mb)
    address_space = (limits.memory_mb * 4 + 1024) << 20 if language.address_space_limit else None
    return Step(tuple(argv), {**BASE_ENV, **language.env}, limits, wall_s=wall_backstop_s(limits.timeout_s),
                cpu_budget_s=limits.timeout_s, cpu_rlimit_s=max(1, math.ceil(limits.timeout_s)),
                address_space_bytes=address_space, failure_markers=language.stderr_failure_markers,
                memory_markers=language.memory_error_markers)


def wall_backstop_s(timeout_s: float) -> float:
    """How long a run with this CPU-time limit may take on the wall clock."""
    return WALL_BACKSTOP_FACTOR * timeout_s + WALL_BACKSTOP_EXTRA_S


def cpu_check_delay(remaining_s: float) -> float:
    """How long until a step with `remaining_s` of its CPU budget left could have spent it."""
    return max(CPU_CHECK_MIN_S, remaining_s / (os.cpu_count() or 1))


SANDBOX_KILLED = "sandbox killed"   # a stop reason: the sandbox (not the program) was killed from outside
_STOPPED = {
    "deadline": (RunStatus.DEADLINE, "the caller's deadline cut the run short"),
    "cancelled": (RunStatus.DEADLINE, "the run was cancelled"),
    "output": (RunStatus.OUTPUT_LIMIT, "stdout/stderr limit"),
    SANDBOX_KILLED: (RunStatus.SANDBOX_ERROR, "the sandbox was killed from outside"),
}
CPU_LIMIT = "CPU-time limit"
OOM_KILLED = "killed by the OOM killer (memory cgroup limit)"
CALLER_STOPS = frozenset({"deadline", "cancelled"})     # stops that are the caller's doing, not the program's


def classify(step: Step, ending: Ending, stderr: bytes) -> tuple[RunStatus, str]:
    """The step's status and detail: what the program earned first (a caller's stop cannot hide it), our own stops
    and limits next, the program's exit last."""
    if ending.files_over_memory:
        return RunStatus.MEMORY_LIMIT, "the files in its workspace (its build) already exceed its memory limit"
    if ending.stopped in CALLER_STOPS:
        return _earned_before_the_cut(step, ending) or _STOPPED[ending.stopped]
    if ending.stopped in _STOPPED:
        return _STOPPED[ending.stopped]
    if ending.stopped == "cpu":
        return RunStatus.TIMEOUT, CPU_LIMIT
    if ending.stopped == "wall":
        if step.cpu_budget_s is None:
            return RunStatus.TIMEOUT, "wall-clock limit"
        return RunStatus.TIMEOUT, (f"wall-clock backstop ({step.wall_s:g} s = {WALL_BACKSTOP_FACTOR} x the "
                                   f"timeout + {WALL_BACKSTOP_EXTRA_S:g} s)")
    if ending.oom_killed:
        return RunStatus.MEMORY_LIMIT, OOM_KILLED
    if ending.sandbox_failure or (ending.exit_code is None and ending.signal is None):
        return RunStatus.SANDBOX_ERROR, ending.sandbox_failure or "the program did not report an exit status"
    if step.setup_failed_exit is not None and ending.exit_code == step.setup_failed_exit:
        return RunStatus.SANDBOX_ERROR, ("the sandbox could not start the tests and the program: "
                                         + stderr.decode(errors="replace")[-300:].strip())
    if step.cpu_budget_s is not None and ending.cpu_s is not None and ending.cpu_s > step.cpu_budget_s:
        return RunStatus.TIMEOUT, CPU_LIMIT
    text = stderr.decode(errors="replace")
    if ending.exit_code == 0:
        marker = next((m for m in step.failure_markers if m in text), None)
        if marker is None:
            return RunStatus.OK, ""
        return RunStatus.EXIT_NONZERO, f"exited 0 but stderr reports failure ({marker!r})"
    if ending.signal == signal.SIGXCPU:
        return RunStatus.TIMEOUT, CPU_LIMIT
    if ending.signal == signal.SIGXFSZ or ending.file_limit_hit:
        return RunStatus.OUTPUT_LIMIT, "file-size limit"
    marker = next((m for m in step.memory_markers if m in text), None)
    if marker is not None:
        return RunStatus.MEMORY_LIMIT, f"the runtime ran out of memory ({marker!r})"
    if ending.signal is not None:
        try:
            return RunStatus.EXIT_NONZERO, f"killed by {signal.Signals(ending.signal).name}"
        except ValueError:
            return RunStatus.EXIT_NONZERO, f"killed by signal {ending.signal}"
    return RunStatus.EXIT_NONZERO, f"exit code {ending.exit_code}"


def _earned_before_the_cut(step: Step, ending: Ending) -> tuple[RunStatus, str] | None:
    """The verdict a run had already earned when the caller's deadline (or cancellation) cut it, so that cutting it
    never hides the program's fault. Past its CPU budget; or it waited: its wall time is past what the backstop allows
    for the CPU it used (3 x its CPU time + 1 s). A run that computes gets at least a third of a core while the slots
    are at most three times the cores (the backstop's own assumption, docs/guards.md), so only a run that sleeps or
    blocks, never one starved by its neighbours, is past that. None: it may have been an honest run; the cut decides."""
    if ending.oom_killed:
        return RunStatus.MEMORY_LIMIT, OOM_KILLED
    if step.cpu_budget_s is None or ending.cpu_s is None:
        return None
    if ending.cpu_s > step.cpu_budget_s:
        return RunStatus.TIMEOUT, CPU_LIMIT
    if ending.elapsed_s is not None and ending.elapsed_s >= wall_backstop_s(ending.cpu_s):
        return RunStatus.TIMEOUT, (f"waited instead of computing: {ending.elapsed_s:.3g} s on the wall clock for "
                                   f"{ending.cpu_s:.3g} s of CPU time when the caller's deadline cut it (the "
                                   f"backstop allows {WALL_BACKSTOP_FACTOR} x the CPU time + "
                                   f"{WALL_BACKSTOP_EXTRA_S:g} s)")
    return None
