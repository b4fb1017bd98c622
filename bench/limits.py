"""What each `serve --limits` mode costs per run, as ratios against a baseline measured in the same run (root).

Servers side by side on loopback: this tree with `--limits cgroup` and with `--limits rlimit`, and with `--baseline
REV` the tree at REV (a git worktree, its own defaults: before `serve --limits` existed, cgroup v1 or nothing). Rounds
alternate between them and the best of each counts. A round: --programs distinct Python stdin programs of 5 tests each
(forked by the zygote) and a fifth as many C++ programs (compiled, then spawned runs), one batch; every verdict must
be PASS. Prints each server's runs per second and its ratio to the baseline (the cgroup mode without --baseline).

Run: python bench/limits.py [--baseline REV] [--workers N] [--rounds 3] [--programs 60]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.server import Server  # noqa: E402
from reward_server.pb import reward_pb2  # noqa: E402

TESTS = 5


def workload(programs: int) -> tuple[list[reward_pb2.Candidate], int]:
    """The candidates of a round and how many runs they make."""
    candidates, runs = [], 0
    for index in range(programs):
        code = f"# program {index}\nimport sys\nxs = list(map(int, sys.stdin.read().split()))\nprint(sum(xs))\n"
        tests = [reward_pb2.IOTest(stdin=f"{index} {test}\n", expected_stdout=f"{index + test}\n")
                 for test in range(TESTS)]
        candidates.append(reward_pb2.Candidate(id=f"py{index}", code=reward_pb2.CodeTask(
            language="python", completion=code, io_tests=tests)))
        runs += TESTS
    for index in range(programs // 5):
        code = (f"// program {index}\n#include <cstdio>\nint main() {{ long a, b; scanf(\"%ld %ld\", &a, &b); "
                "printf(\"%ld\\n\", a + b); }\n")
        tests = [reward_pb2.IOTest(stdin=f"{index} {test}\n", expected_stdout=f"{index + test}\n")
                 for test in range(TESTS)]
        candidates.append(reward_pb2.Candidate(id=f"cpp{index}", code=reward_pb2.CodeTask(
            language="cpp", completion=code, io_tests=tests)))
        runs += TESTS
    return candidates, runs


async def one_round(server: Server, candidates: list[reward_pb2.Candidate], runs: int) -> float:
    started = time.perf_counter()
    results = await server.client.score(candidates, timeout_s=600)
    seconds = time.perf_counter() - started
    failed = [f"{r.id}: {reward_pb2.Verdict.Name(r.verdict)} {r.detail[:300]!r}" for r in results
              if reward_pb2.Verdict.Name(r.verdict) != "PASS"]
    if failed:
        raise SystemExit(f"{server.name}: not PASS: {failed[:5]}")
    return runs / seconds


@contextlib.contextmanager
def worktree(revision: str | None):
    if revision is None:
        yield None
        return
    path = pathlib.Path(tempfile.mkdtemp(prefix="bench-baseline-"))
    path.chmod(0o755)       # the sandboxes bind files of it (the guard) as their own uids
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), revision], check=True,
                   capture_output=True)
    try:
        yield path
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)], check=False)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", help="a git revision to measure beside this tree")
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--programs", type=int, default=60)
    args = parser.parse_args()
    candidates, runs = workload(args.programs)
    with worktree(args.baseline) as baseline_root:
        servers = [Server("cgroup", args.workers, "--limits", "cgroup"),
                   Server("rlimit", args.workers, "--limits", "rlimit")]
        if baseline_root is not None:
            servers.insert(0, Server(f"baseline {args.baseline}", args.workers, root=baseline_root))
        try:
            for server in servers:
                await server.connect()
                await one_round(server, candidates, runs)         # warm: zygotes, the compiler's caches
            best = {server.name: 0.0 for server in servers}
            for _ in range(args.rounds):
                for server in servers:
                    best[server.name] = max(best[server.name], await one_round(server, candidates, runs))
        finally:
            for server in servers:
                await server.stop()
    reference = servers[0].name
    print(f"{runs} runs a round ({args.programs} Python programs, {args.programs // 5} C++), {args.workers} workers, "
          f"best of {args.rounds} rounds")
    for name, rate in best.items():
        print(f"  {name:<28} {rate:7.1f} runs/s  {rate / best[reference]:.2f}x {reference}")


if __name__ == "__main__":
    asyncio.run(main())
