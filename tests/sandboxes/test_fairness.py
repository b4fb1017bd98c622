"""Verdicts a neighbour cannot skew: a run's time limit is its own CPU time, and every slot weighs the same.

Eight slots on a machine with fewer cores: honest programs share the CPU with a neighbour that starts a
dozen busy processes, and must still be judged by what they computed, not by how long they waited.
"""

from __future__ import annotations

import asyncio
import os
import pathlib
from collections.abc import Iterator

import pytest

from sandboxes.backends.process.backend import ProcessBackend
from sandboxes.languages import LanguageTable
from sandboxes.pool import SandboxPool
from sandboxes.results import Limits, RunResult, RunStatus

SLOTS = 8
AUTOGROUP = pathlib.Path("/proc/sys/kernel/sched_autogroup_enabled")
NEIGHBOUR_PROCESSES = 12
NEIGHBOUR = (f"import os\nfor _ in range({NEIGHBOUR_PROCESSES}):\n    if os.fork() == 0:\n        while True:\n"
             "            pass\nos.wait()\n")
BACKSTOP = "wall-clock backstop ({:g} s = 3 x the timeout + 1 s)"


def burner(index: int, cpu_s: float) -> str:
    """A distinct program that computes for `cpu_s` seconds of its own CPU time, then says so."""
    return (f"import time\n# honest program {index}\nend = time.process_time() + {cpu_s}\nn = 0\n"
            "while time.process_time() < end:\n    n += 1\nprint('done')\n")


def spread(children: int, cpu_s: float) -> str:
    """A program whose children each compute for `cpu_s` seconds (below the per-process rlimit)."""
    return (f"import os, time\nfor _ in range({children}):\n    if os.fork() == 0:\n"
            f"        end = time.process_time() + {cpu_s}\n        while time.process_time() < end:\n"
            "            pass\n        os._exit(0)\n"
            f"for _ in range({children}):\n    os.wait()\nprint('done')\n")


@pytest.fixture(scope="module", params=[True, False], ids=["zygote", "spawn"])
def pool(request: pytest.FixtureRequest) -> Iterator[SandboxPool]:
    if os.geteuid() != 0:
        pytest.skip("the process backend needs root")
    pool = SandboxPool(ProcessBackend(fork_from_zygotes=request.param), slots=SLOTS)
    asyncio.run(pool.start())
    try:
        yield pool
    finally:
        asyncio.run(pool.close())


@pytest.fixture
def autogroup_off() -> Iterator[None]:
    """Fairness must come from the slots' cpu groups, not from the host's autogroup scheduling."""
    if not AUTOGROUP.exists():
        yield
        return
    before = AUTOGROUP.read_text()
    AUTOGROUP.write_text("0")
    try:
        yield
    finally:
        AUTOGROUP.write_text(before)


async def run_python(pool: SandboxPool, table: LanguageTable, source: str, limits: Limits) -> RunResult:
    async with pool.workspace(table.resolve("python"), source, priority=1, caller="test", deadline=None) as workspace:
        return await workspace.run(b"", limits, None)


def members(pool: SandboxPool) -> int:
    """The runs' processes in every slot (not the slots' residents, their zygotes)."""
    return sum(len(slot.strangers) for slot in pool.backend.slots())


@pytest.mark.asyncio
async def test_a_busy_neighbour_cannot_time_out_honest_programs(pool, table, autogroup_off) -> None:
    neighbour = asyncio.create_task(run_python(pool, table, NEIGHBOUR, Limits(timeout_s=600, memory_mb=256)))
    try:
        async with asyncio.timeout(60):
            while members(pool) <= NEIGHBOUR_PROCESSES:
                await asyncio.sleep(0.05)
        honest = await asyncio.gather(*(run_python(pool, table, burner(i, 0.8), Limits(timeout_s=1.0, memory_mb=256))
                                        for i in range(SLOTS)))
    finally:
        neighbour.cancel()
        await asyncio.gather(neighbour, return_exceptions=True)
    assert neighbour.cancelled()  # it was busy all along
    assert [(r.status, r.stdout) for r in honest] == [(RunStatus.OK, b"done\n")] * SLOTS, honest
    assert members(pool) == 0


@pytest.mark.asyncio
async def test_processes_that_together_exceed_the_cpu_budget_time_out(pool, table) -> None:
    # four children of 0.6 s each: none reaches its own 1 s rlimit, together they spend 2.4 s
    result = await run_python(pool, table, spread(4, 0.6), Limits(timeout_s=1.0, memory_mb=256))
    assert (result.status, result.detail) == (RunStatus.TIMEOUT, "CPU-time limit"), result
    assert result.cpu_s > 1.0
    within = await run_python(pool, table, spread(4, 0.6), Limits(timeout_s=3.0, memory_mb=256))
    assert (within.status, within.stdout) == (RunStatus.OK, b"done\n"), within
    assert 2.4 < within.cpu_s < 3.0


@pytest.mark.asyncio
async def test_waiting_is_not_computing_until_the_wall_clock_backstop(pool, table) -> None:
    limits = Limits(timeout_s=0.5, memory_mb=256)
    waits = await run_python(pool, table, "import time\ntime.sleep(1)\nprint('woke')", limits)
    assert (waits.status, waits.stdout) == (RunStatus.OK, b"woke\n"), waits
    sleeper = await run_python(pool, table, "import time\ntime.sleep(10**6)", limits)
    assert (sleeper.status, sleeper.detail) == (RunStatus.TIMEOUT, BACKSTOP.format(2.5)), sleeper

