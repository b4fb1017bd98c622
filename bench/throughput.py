"""Throughput of the reward path, as ratios against a baseline measured in the same run.

1. Code: N small Python programs (half pass, half fail) graded through the server with isolation on (forked by
   each slot's zygote), against the same programs run as bare `/usr/bin/python3` subprocesses at the same
   concurrency. Target: server rate >= 2.5x the bare rate (bench/runs.py compares with the spawn path too).
2. Equations: SAIR verdicts/s through gRPC in batches of 1024 (target >= 50,000/s).

Run: python bench/throughput.py [--programs 300] [--workers N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import pathlib
import random
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.server import Server  # noqa: E402
from reward_server.client import AsyncRewardClient  # noqa: E402
from reward_server.pb import reward_pb2  # noqa: E402

BARE_PYTHON = "/usr/bin/python3"


def programs(count: int) -> list[tuple[str, str, str]]:
    """(code, stdin, expected stdout); odd ones print a wrong answer. Each program is distinct, and the server
    keeps no results (--cache-size 0), so every round really runs every program."""
    rng = random.Random(7)
    cases = []
    for i in range(count):
        n = rng.randint(10, 1000)
        off = i % 2
        code = f"# program {i}\nn = int(input())\nprint(sum(i * i for i in range(n)) + {off})\n"
        cases.append((code, f"{n}\n", f"{sum(i * i for i in range(n))}\n"))
    return cases


async def bare_rate(cases: list[tuple[str, str, str]], workers: int) -> tuple[float, int]:
    gate = asyncio.Semaphore(workers)

    async def one(code: str, stdin: str, expected: str) -> bool:
        async with gate:
            proc = await asyncio.create_subprocess_exec(
                BARE_PYTHON, "-c", code, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            out, _ = await proc.communicate(stdin.encode())
            return proc.returncode == 0 and out.decode().rstrip() == expected.rstrip()

    started = time.perf_counter()
    passed = sum(await asyncio.gather(*(one(*case) for case in cases)))
    return len(cases) / (time.perf_counter() - started), passed


async def server_rate(client: AsyncRewardClient, cases: list[tuple[str, str, str]]) -> tuple[float, int]:
    candidates = [reward_pb2.Candidate(id=str(i), code=reward_pb2.CodeTask(
        language="python", completion=code, io_tests=[reward_pb2.IOTest(stdin=stdin, expected_stdout=expected)]))
        for i, (code, stdin, expected) in enumerate(cases)]
    started = time.perf_counter()
    results = await client.score(candidates)
    elapsed = time.perf_counter() - started
    infra = [r for r in results if reward_pb2.Verdict.Name(r.verdict).startswith("INFRA")]
    if infra:
        raise SystemExit(f"infra failures during the benchmark: {infra[:3]}")
    return len(cases) / elapsed, sum(r.verdict == reward_pb2.PASS for r in results)


RESPONSES = [
    "Let me think about the magma laws.\nSubstituting x = y gives a contradiction.\n\n\\boxed{FALSE}",
    "We check the implication on a 2-element magma... it holds for all.\n**VERDICT: TRUE**",
    "Reasoning:\n1. Assume equation 1.\n2. Derive equation 2 by rewriting.\nFinal answer: TRUE",
    "The answer must be TRUE or FALSE. I could not decide.",
]


async def equation_rate(client: AsyncRewardClient, batches: int, in_flight: int) -> float:
    rng = random.Random(3)
    batch = [reward_pb2.Candidate(id=str(i), equation=reward_pb2.EquationTask(
        response=rng.choice(RESPONSES) + " " * rng.randint(0, 50), expected=rng.random() < 0.5)) for i in range(1024)]
    gate = asyncio.Semaphore(in_flight)

    async def one() -> int:
        async with gate:
            return len(await client.score(batch))

    started = time.perf_counter()
    total = sum(await asyncio.gather(*(one() for _ in range(batches))))
    return total / (time.perf_counter() - started)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--programs", type=int, default=300)
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds; the best of each side counts")
    parser.add_argument("--equation-batches", type=int, default=200)
    args = parser.parse_args()
    cases = programs(args.programs)
    async with Server("server", args.workers) as server:
        client = server.client
        await server_rate(client, cases[:20])  # warm-up: toolchain fingerprint, page cache
        bare, graded = [], []
        for _ in range(args.rounds):
            bare.append(await bare_rate(cases, args.workers))
            graded.append(await server_rate(client, cases))
        assert all(p == args.programs // 2 + args.programs % 2 for _, p in bare + graded), (bare, graded)
        best_bare, best_server = max(r for r, _ in bare), max(r for r, _ in graded)
        print(f"code: {args.programs} python programs x {args.rounds} rounds, concurrency {args.workers}")
        print(f"  bare /usr/bin/python3 : {best_bare:8.1f} programs/s")
        print(f"  server (isolated)     : {best_server:8.1f} programs/s")
        print(f"  ratio server/bare     : {best_server / best_bare:8.3f}   (target >= 2.5)")
        rate = await equation_rate(client, args.equation_batches, in_flight=4)
        print(f"equations: {args.equation_batches} batches of 1024 through gRPC: {rate:,.0f} verdicts/s "
              "(target >= 50,000/s)")


if __name__ == "__main__":
    asyncio.run(main())
