"""Neighbour-proof limits, as ratios against baselines measured in the same run (process backend, root).

1. Honest CPU-bound Python programs (each computes --cpu seconds) fill all slots but one, alone and then
   next to a neighbour whose slot runs 12 busy processes: per-run wall time with vs without the neighbour
   (equal slot weights predict slots/(slots-1); sharing per process would give (slots-1+12)/(slots-1)),
   per-run CPU time (what the verdict is based on) with vs without, and how many runs a timeout_s of
   --timeout would time out under the old wall-clock rule (elapsed > timeout_s) and under the new one
   (CPU time > timeout_s, or elapsed past the backstop). They run under a generous limit, so that what
   is measured is their time, not where a limit cut them.
2. What the bookkeeping costs per run in CPU: joining the cpu and cpuacct groups (two more cgroup
   migrations in the launcher), reading the CPU counter before and after, and arming the CPU watch,
   against a trivial run's CPU (the server's side and the sandbox's).

Run: python bench/fairness.py [--slots 8] [--cpu 0.8] [--timeout 1.0] [--rounds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import pathlib
import statistics
import subprocess
import sys
import time
import uuid

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sandboxes.backends.process.backend import ProcessBackend  # noqa: E402
from sandboxes.backends.process.cgroup_v1 import SlotCgroup  # noqa: E402
from sandboxes.languages import LanguageTable  # noqa: E402
from sandboxes.policy import wall_backstop_s  # noqa: E402
from sandboxes.pool import SandboxPool  # noqa: E402
from sandboxes.results import Limits, RunResult, RunStatus  # noqa: E402

NEIGHBOUR_PROCESSES = 12
NEIGHBOUR = (f"import os\nfor _ in range({NEIGHBOUR_PROCESSES}):\n    if os.fork() == 0:\n        while True:\n"
             "            pass\nos.wait()\n")
PYTHON = LanguageTable.load().resolve("python")
GENEROUS = Limits(timeout_s=60, memory_mb=256)


def burner(index: int, cpu_s: float) -> str:
    return (f"import time\n# honest program {index}\nend = time.process_time() + {cpu_s}\nn = 0\n"
            "while time.process_time() < end:\n    n += 1\nprint('done')\n")


@dataclasses.dataclass(frozen=True)
class Round:
    wall_s: float      # mean per-run elapsed
    cpu_s: float       # mean per-run CPU time, all the run's processes
    ok: int
    old_timeouts: int  # elapsed > timeout_s
    new_timeouts: int  # CPU time > timeout_s, or elapsed > the wall-clock backstop


async def run(pool: SandboxPool, source: str, limits: Limits) -> RunResult:
    async with pool.workspace(PYTHON, source, priority=1, caller="bench", deadline=None) as workspace:
        return await workspace.run(b"", limits, None)


async def honest_round(pool: SandboxPool, count: int, cpu_s: float, timeout_s: float, tag: int) -> Round:
    results = await asyncio.gather(*(run(pool, burner(tag * 1000 + i, cpu_s), GENEROUS) for i in range(count)))
    return Round(statistics.mean(r.elapsed_s for r in results), statistics.mean(r.cpu_s for r in results),
                 sum(r.status is RunStatus.OK for r in results), sum(r.elapsed_s > timeout_s for r in results),
                 sum(r.cpu_s > timeout_s or r.elapsed_s > wall_backstop_s(timeout_s) for r in results))


async def with_neighbour(pool: SandboxPool, count: int, cpu_s: float, timeout_s: float, tag: int) -> Round:
    neighbour = asyncio.create_task(run(pool, NEIGHBOUR, Limits(timeout_s=3600, memory_mb=256)))
    try:
        while sum(len(slot.strangers) for slot in pool.backend.slots()) <= NEIGHBOUR_PROCESSES:
            if neighbour.done():
                raise SystemExit(f"the neighbour ended early: {neighbour.result()}")
            await asyncio.sleep(0.05)
        return await honest_round(pool, count, cpu_s, timeout_s, tag)
    finally:
        neighbour.cancel()
        await asyncio.gather(neighbour, return_exceptions=True)


async def trivial_run_cpu(pool: SandboxPool, runs: int) -> tuple[float, float]:
    """Mean CPU seconds per trivial run: this process's side (spawn, pipes, bookkeeping) and the sandbox's."""
    limits = Limits(timeout_s=5, memory_mb=256)
    await run(pool, "pass", limits)  # warm-up
    sandbox = 0.0
    started = time.process_time()
    for _ in range(runs):
        sandbox += (await run(pool, "pass", limits)).cpu_s
    return (time.process_time() - started) / runs, sandbox / runs


def per_call_cpu(action, calls: int) -> float:
    started = time.process_time()
    for _ in range(calls):
        action()
    return (time.process_time() - started) / calls


def join_cost(calls: int) -> float:
    """CPU seconds to move one process into a slot's cpu and cpuacct groups (what the launcher now adds)."""
    parent = f"reward-bench-{uuid.uuid4().hex[:8]}"
    groups = [SlotCgroup.create(parent, name) for name in ("a", "b")]
    sleeper = subprocess.Popen(["sleep", "600"])
    pid = str(sleeper.pid)
    targets = [(group.cpu / "cgroup.procs", group.cpuacct / "cgroup.procs") for group in groups]
    flip = [0]

    def join() -> None:
        flip[0] ^= 1
        for procs in targets[flip[0]]:
            with open(procs, "w") as f:
                f.write(pid)

    try:
        return per_call_cpu(join, calls)
    finally:
        sleeper.kill()
        sleeper.wait()
        for group in groups:
            group.remove()


async def bookkeeping(pool: SandboxPool, calls: int) -> tuple[float, float, float]:
    """CPU seconds per run of: the two extra cgroup joins, the two counter reads, arming and cancelling the watch."""
    cgroup = pool.backend._slots[0].limits
    loop = asyncio.get_running_loop()
    joins = join_cost(calls)
    reads = 2 * per_call_cpu(cgroup.cpu_total_ns, calls)
    timer = per_call_cpu(lambda: loop.call_later(1.0, lambda: None).cancel(), calls)
    return joins, reads, timer


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--slots", type=int, default=8)
    parser.add_argument("--cpu", type=float, default=0.8, help="CPU seconds each honest program computes")
    parser.add_argument("--timeout", type=float, default=1.0, help="the honest programs' timeout_s")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds; the best of each side counts")
    parser.add_argument("--trivial-runs", type=int, default=200)
    args = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("the process backend needs root")
    pool = SandboxPool(ProcessBackend(), slots=args.slots)
    await pool.start()
    honest = args.slots - 1
    try:
        await honest_round(pool, honest, 0.05, args.timeout, 0)  # warm-up: page cache
        alone, crowded = [], []
        for index in range(args.rounds):
            alone.append(await honest_round(pool, honest, args.cpu, args.timeout, 2 * index + 1))
            crowded.append(await with_neighbour(pool, honest, args.cpu, args.timeout, 2 * index + 2))
        best_alone, best_crowded = min(alone, key=lambda r: r.wall_s), min(crowded, key=lambda r: r.wall_s)
        server_cpu, sandbox_cpu = await trivial_run_cpu(pool, args.trivial_runs)
        joins, reads, timer = await bookkeeping(pool, 2000)
    finally:
        await pool.close()
    cores = len(os.sched_getaffinity(0))
    print(f"honest: {honest} python programs x {args.cpu:g} s CPU, {args.slots} slots on {cores} cores, "
          f"best of {args.rounds} rounds; TIMEOUT counts for timeout_s {args.timeout:g}")
    print("                              per-run wall  per-run CPU  exit 0  TIMEOUT: old rule  new rule")
    for name, r in (("alone", best_alone), (f"busy neighbour ({NEIGHBOUR_PROCESSES} procs)", best_crowded)):
        print(f"  {name:27s} {r.wall_s:9.2f} s  {r.cpu_s:9.3f} s  {r.ok:4d}/{honest}  {r.old_timeouts:14d}/{honest}"
              f"  {r.new_timeouts:6d}/{honest}")
    print(f"  wall ratio neighbour/alone  {best_crowded.wall_s / best_alone.wall_s:9.2f}    (equal slot weights: "
          f"{args.slots / honest:.2f}; weight per process: {(honest + NEIGHBOUR_PROCESSES) / honest:.2f})")
    print(f"  CPU ratio neighbour/alone   {best_crowded.cpu_s / best_alone.cpu_s:9.2f}    (the verdict's measure)")
    total = server_cpu + sandbox_cpu
    extra = joins + reads + timer
    print(f"bookkeeping per run: cpu+cpuacct joins {joins * 1e6:.1f} us + 2 counter reads {reads * 1e6:.1f} us "
          f"+ watch timer {timer * 1e6:.1f} us = {extra * 1e6:.1f} us CPU")
    print(f"  trivial run ('pass'): {server_cpu * 1e3:.2f} ms server + {sandbox_cpu * 1e3:.2f} ms sandbox = "
          f"{total * 1e3:.2f} ms CPU; ratio with/without bookkeeping {total / (total - extra):.4f}")


if __name__ == "__main__":
    asyncio.run(main())
