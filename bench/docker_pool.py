"""The docker backend against its baselines, measured in the same run.

1. Warm container pool vs a fresh `docker run` per program: executions/s for small Python programs. Both sides run
   the same pinned python image with the same isolation (no network, read-only root, tmpfs workdir, no
   capabilities, unprivileged user, memory/pids limits) at the same concurrency. The warm side goes through the real
   grader and pool (extraction, workspace reset, one test with stdin, verdict); the fresh side is `docker run --rm`
   of `python3 -c PROGRAM` through the same engine.
2. C++ compiles with the image's precompiled header vs none: the median compile time (the runner's wall clock) of
   distinct programs starting with `#include <bits/stdc++.h>`, and of the same with a comment first (no prefix
   fits), interleaved, one at a time in one warm cpp container.

    python bench/docker_pool.py [--warm-programs 300] [--fresh-programs 40] [--concurrency 2] [--cpp-programs 20]

Without --docker-host/--lock it starts a private dockerd and registry (sandboxes/backends/docker/engine.py) and
builds/pins the python and cpp images into a temporary lock (cached layers: seconds when already built).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import docker

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.runs import CPP_BODY, CPP_PROGRAMS
from reward_server.graders.code import CodeGrader, CodeJob
from reward_server.verdicts import Verdict
from sandboxes.backends.docker.backend import DockerBackend
from sandboxes.backends.docker.engine import private_engine
from sandboxes.backends.docker.images import build_images
from sandboxes.backends.docker.lock import ImageLock
from sandboxes.backends.docker.runtime import SANDBOX_USER, WORKDIR
from sandboxes.languages import LanguageTable
from sandboxes.pool import SandboxPool
from sandboxes.results import RunStatus

PROGRAM = "a, b = map(int, input().split())\nprint(a + b)\n"
FRESH_PROGRAM = "a, b = 2, {i}\nprint(a + b)\n"
PRECOMPILED, NO_FIT = "bits/stdc++.h (precompiled)", "bits/stdc++.h, no header fits"


async def warm_pool(url: str, lock_path: Path, table: LanguageTable, programs: int, concurrency: int) -> float:
    backend = DockerBackend(lock_path, table=table, warm=concurrency, warm_languages=["python"], docker_url=url)
    pool = SandboxPool(backend, concurrency)
    await pool.start()
    grader = CodeGrader(table, pool)
    try:
        async def one(i: int) -> Verdict:
            job = CodeJob("python", PROGRAM, io_tests=((f"2 {i}\n", f"{2 + i}\n"),))
            return (await grader.grade(job, priority=0, caller="bench", deadline=None)).verdict

        await asyncio.gather(*(one(i) for i in range(concurrency)))   # the pool is warm; so are the caches
        started = time.perf_counter()
        verdicts = await asyncio.gather(*(one(i) for i in range(programs)))
        elapsed = time.perf_counter() - started
        print(f"warm pool stats: {backend.stats()['python']}")
    finally:
        await pool.close()
    failed = [v for v in verdicts if v is not Verdict.PASS]
    if failed:
        raise SystemExit(f"warm pool: {len(failed)} program(s) did not pass: {failed[:3]}")
    return programs / elapsed


def fresh_runs(url: str, reference: str, programs: int, concurrency: int) -> float:
    client = docker.DockerClient(base_url=url, timeout=300)

    def one(i: int) -> None:
        out = client.containers.run(
            reference, command=["/usr/bin/python3", "-c", FRESH_PROGRAM.format(i=i)], remove=True,
            network_mode="none", ipc_mode="none", read_only=True, user=SANDBOX_USER, working_dir=WORKDIR,
            tmpfs={WORKDIR: "rw,exec,size=64m,mode=1777", "/tmp": "rw,exec,size=64m,mode=1777"},
            cap_drop=["ALL"], security_opt=["no-new-privileges"], mem_limit="560m", memswap_limit="560m",
            pids_limit=72, nano_cpus=1_000_000_000)
        if out.decode().strip() != str(2 + i):
            raise SystemExit(f"fresh run {i} printed {out!r}")

    with ThreadPoolExecutor(concurrency) as executor:
        list(executor.map(one, range(concurrency)))
        started = time.perf_counter()
        list(executor.map(one, range(programs)))
        elapsed = time.perf_counter() - started
    client.close()
    return programs / elapsed


async def cpp_compiles(url: str, lock_path: Path, table: LanguageTable, programs: int) -> dict[str, float]:
    """The median compile time of each C++ variant; the first program of each only warms the caches."""
    backend = DockerBackend(lock_path, table=table, warm=1, warm_languages=["cpp"], docker_url=url)
    await backend.start(1)
    cpp = table.resolve("cpp")
    times: dict[str, list[float]] = {PRECOMPILED: [], NO_FIT: []}
    try:
        for index in range(programs + 1):
            for name in list(times)[::1 if index % 2 else -1]:        # each variant goes first in turn
                source = CPP_PROGRAMS[name] + CPP_BODY.format(index=index)
                async with backend.workspace(cpp, source, 0) as workspace:
                    compiled = await workspace.compile(None)
                if compiled.status is not RunStatus.OK:
                    raise SystemExit(f"C++ compile failed ({name}): {compiled}")
                if index:
                    times[name].append(compiled.elapsed_s)
    finally:
        await backend.close()
    return {name: statistics.median(elapsed) for name, elapsed in times.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warm-programs", type=int, default=300)
    parser.add_argument("--fresh-programs", type=int, default=40)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--cpp-programs", type=int, default=20, help="C++ programs per variant")
    parser.add_argument("--docker-host", help="an engine that already has the lock's python and cpp images")
    parser.add_argument("--lock", type=Path, help="image lock pinning python and cpp (with --docker-host)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    table = LanguageTable.load()
    with contextlib.ExitStack() as stack:
        if args.docker_host and args.lock:
            url, lock_path = args.docker_host, args.lock
        else:
            engine = stack.enter_context(private_engine())
            url = engine.url
            lock_path = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "images.lock"
            with contextlib.closing(docker.DockerClient(base_url=url, timeout=600)) as client:
                build_images(client, [table.resolve("python"), table.resolve("cpp")], engine.registry, lock_path)
        reference = ImageLock.load(lock_path).images["python"].reference
        print(f"image: {reference}\nconcurrency: {args.concurrency}")
        warm = asyncio.run(warm_pool(url, lock_path, table, args.warm_programs, args.concurrency))
        print(f"warm pool:        {warm:8.1f} executions/s ({args.warm_programs} programs, graded)")
        fresh = fresh_runs(url, reference, args.fresh_programs, args.concurrency)
        print(f"fresh docker run: {fresh:8.1f} executions/s ({args.fresh_programs} programs)")
        print(f"ratio:            {warm / fresh:8.1f}x (target >= 4x)")
        medians = asyncio.run(cpp_compiles(url, lock_path, table, args.cpp_programs))
        print(f"C++ compile in the cpp image ({ImageLock.load(lock_path).images['cpp'].reference}), median of "
              f"{args.cpp_programs} distinct programs each, interleaved")
        for name, median in medians.items():
            print(f"  {name:32s} {1e3 * median:7.0f} ms")
        print(f"  precompiled / no header fits:  {medians[PRECOMPILED] / medians[NO_FIT]:7.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
