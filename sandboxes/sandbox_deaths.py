"""A sandbox that dies under a step is never the program's fault: the step goes again, once, in a fresh sandbox.

What a backend knows decides first (policy.classify): our own stops, the memory cgroup's OOM counter, the CPU time
against the budget, bubblewrap's or the runner's report, a zygote or container gone. Two endings are left that are not
the program's doing for all we know:
- a sandbox failure (SANDBOX_ERROR): a zygote, launcher, bubblewrap or container died, or could not start;
- a SIGKILL none of the step's limits explains. The kernel names no sender of a SIGKILL: the program may have sent
  it to itself, or an operator, the host's OOM killer or the death of the run's init (its pid namespace ending) did.
Either goes again, once: an outsider's kill rarely strikes the same step twice, while a program that kills itself does
it again and keeps its RUNTIME_ERROR. A second sandbox failure stays one (INFRA_SANDBOX_ERROR). The counts are the
operator's view of a sick host (the server's `reward_sandbox_deaths` and `reward_sandbox_retried_steps` metrics).
"""

from __future__ import annotations

import collections
import logging
import signal
from collections.abc import Awaitable, Callable

from sandboxes.results import RunResult, RunStatus

log = logging.getLogger(__name__)

SANDBOX_FAILED = "sandbox_failed"     # the sandbox itself failed or died
UNEXPLAINED_KILL = "unexplained_kill"  # the program died of a SIGKILL that none of its limits explains
CAUSES = (SANDBOX_FAILED, UNEXPLAINED_KILL)


class SandboxDeaths:
    """A backend's count of steps whose sandbox died under them, by cause, and of the steps that went again."""

    def __init__(self) -> None:
        self.by_cause: collections.Counter[str] = collections.Counter({cause: 0 for cause in CAUSES})
        self.retried = 0


def cause_of_death(result: RunResult) -> str | None:
    """Why a step's ending may not be the program's own, or None when it is (or is the caller's deadline)."""
    if result.status is RunStatus.SANDBOX_ERROR:
        return SANDBOX_FAILED
    if result.status is RunStatus.EXIT_NONZERO and result.signal == signal.SIGKILL:
        return UNEXPLAINED_KILL
    return None


async def at_most_twice(step: Callable[[], Awaitable[RunResult]], deaths: SandboxDeaths, what: str) -> RunResult:
    """The step's result; once more, in a fresh sandbox (`step` must make one), if its sandbox may have died."""
    first = await step()
    cause = cause_of_death(first)
    if cause is None:
        return first
    deaths.by_cause[cause] += 1
    deaths.retried += 1
    log.warning("%s: %s (%s); running it again", what, cause.replace("_", " "), first.detail)
    second = await step()
    again = cause_of_death(second)
    if again is not None:
        deaths.by_cause[again] += 1
    return second
