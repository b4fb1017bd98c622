"""What one sandboxed step (a compile or a run) produced, and the limits it ran under."""

from __future__ import annotations

import dataclasses
import enum


class RunStatus(enum.Enum):
    OK = "ok"                          # exited 0 within every limit
    EXIT_NONZERO = "exit_nonzero"      # non-zero exit or killed by a signal we did not send
    TIMEOUT = "timeout"                # CPU-time limit or wall-clock backstop (policy.run_step)
    MEMORY_LIMIT = "memory_limit"      # the memory cgroup (or address-space limit) was hit
    OUTPUT_LIMIT = "output_limit"      # stdout/stderr cap or the file-size limit
    DEADLINE = "deadline"              # the caller's deadline cut the run short (not the program's fault)
    SANDBOX_ERROR = "sandbox_error"    # our failure: the sandbox itself did not work


@dataclasses.dataclass(frozen=True)
class Limits:
    timeout_s: float                   # a run: CPU seconds, all its processes together; a compile: wall clock
    memory_mb: int
    max_processes: int = 64
    max_file_bytes: int = 64 << 20
    max_output_bytes: int = 8 << 20
    max_open_files: int = 256


@dataclasses.dataclass(frozen=True)
class RunResult:
    status: RunStatus
    exit_code: int | None
    stdout: bytes
    stderr: bytes
    elapsed_s: float
    detail: str = ""   # our explanation, e.g. why the sandbox failed or which signal killed it
    cpu_s: float | None = None  # CPU seconds all the step's processes used; None: not measured
    peak_memory_bytes: int | None = None  # memory high-water mark (per backend: docs/grading.md); None: not measured
    signal: int | None = None   # the signal that killed the program, as its exit status says (sandbox_deaths.py)
