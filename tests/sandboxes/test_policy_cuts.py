"""The policy's rule for steps the caller cut short, and for steps that could not start under their memory limit:
what the program had already earned is its verdict (issue 28); only what may have been an honest run is DEADLINE."""

from __future__ import annotations

import pytest

from sandboxes.policy import Ending, Step, classify, compile_step, run_step
from sandboxes.results import Limits, RunStatus

LIMITS = Limits(timeout_s=2, memory_mb=256)


@pytest.fixture
def run(table) -> Step:
    return run_step(table.resolve("python"), "print(1)", LIMITS)


@pytest.mark.parametrize(("stopped", "cpu_s", "elapsed_s", "oom", "status", "detail"), [
    ("deadline", 2.5, 3.0, False, RunStatus.TIMEOUT, "CPU-time limit"),            # past its budget
    ("deadline", 0.01, 1.2, False, RunStatus.TIMEOUT, "waited instead of computing"),  # slept past 3 x 0.01 + 1 s
    ("cancelled", 0.3, 2.0, False, RunStatus.TIMEOUT, "waited instead of computing"),
    ("deadline", 0.5, 2.4, False, RunStatus.DEADLINE, "deadline"),                   # a third of a core: computing
    ("deadline", 0.01, 0.9, False, RunStatus.DEADLINE, "deadline"),                  # not long enough to tell
    ("deadline", None, 30.0, False, RunStatus.DEADLINE, "deadline"),                 # nothing measured
    ("deadline", 0.1, 0.5, True, RunStatus.MEMORY_LIMIT, "OOM killer"),
])
def test_a_cut_run_keeps_what_it_earned(run: Step, stopped: str, cpu_s: float | None, elapsed_s: float, oom: bool,
                                        status: RunStatus, detail: str) -> None:
    got, why = classify(run, Ending(stopped=stopped, cpu_s=cpu_s, elapsed_s=elapsed_s, oom_killed=oom), b"")
    assert got is status and detail in why, why


def test_a_cut_compile_is_the_deadline_s(table) -> None:
    step = compile_step(table.resolve("cpp"), "int main() {}")
    assert classify(step, Ending(stopped="deadline", cpu_s=100.0, elapsed_s=100.0), b"")[0] is RunStatus.DEADLINE


def test_files_over_the_memory_limit_are_memory_limit(run: Step) -> None:
    status, detail = classify(run, Ending(files_over_memory=True), b"")
    assert status is RunStatus.MEMORY_LIMIT and "files in its workspace" in detail
