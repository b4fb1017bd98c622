"""The same grading jobs through the docker backend and the process backend give the same verdicts: every imaged
language's self-check samples (their folders' samples.toml) pass and fail as expected on both, and so does a real
MultiPL-E problem in each imaged language (tests/judge_cases.py: the judge's test libraries and imports are in every
image), the C++ hacks that its tests' own unit stops (tests/test_cpp_isolation.py), and a few jobs more."""

from __future__ import annotations

import asyncio

import pytest

from reward_server.evaluation.selfcheck import EXPECTED, FUNCTION_EXPECTED, LOOP_TIMEOUT_S
from reward_server.graders.code import CodeJob
from reward_server.verdicts import Verdict
from sandboxes.backends.process.backend import ProcessBackend
from sandboxes.languages.samples import SUM_TESTS, SUM_TESTS_LAST_WRONG, load_samples
from tests.compiled_sources import source_seeker_jobs
from tests.docker.conftest import BUILT, IMAGED, grade, grader_for
from tests.judge_cases import multipl_e_cases
from tests.language_table import load_table
from tests.test_build_size import BIG_BINARY
from tests.test_cpp_isolation import HACKS as CPP_HACKS
from tests.test_cpp_isolation import HELD as CPP_HELD
from tests.test_deadlines import COMPUTER, SLEEPER

EXTRA_JOBS = {
    "python/raises": CodeJob("python", "raise SystemExit(3)\n", io_tests=(("", ""),)),
    "python/loops": CodeJob("python", "while True:\n    pass\n", io_tests=(("", ""),), timeout_s=2),
    "python/sleeps": CodeJob("python", "import time\ntime.sleep(30)\n", io_tests=(("", ""),), timeout_s=1),
    "python/floods": CodeJob("python", "import sys\nsys.stdout.write('x' * (9 << 20))\n", io_tests=(("", ""),)),
    "python/hoards": CodeJob("python", "x = bytearray(3 << 30)\n", io_tests=(("", ""),)),
    "python/daemon": CodeJob("python", "import subprocess\nsubprocess.Popen(['sleep', '60'], start_new_session=True)\n"
                             "print('done')\n", io_tests=(("", "done\n"),), timeout_s=5),
    "cpp/syntax": CodeJob("cpp", "int main() { return }\n", io_tests=(("", ""),)),
    "java/syntax": CodeJob("java", "public class Main { void f( }\n", io_tests=(("", ""),)),
    "javascript/exit": CodeJob("javascript", "process.exit(4);\n", io_tests=(("", ""),)),
    "javascript/hoards": CodeJob("javascript", "const a = [];\nwhile (true) a.push(new Array(1e6).fill(1));\n",
                                 io_tests=(("", ""),)),
    "lua/error": CodeJob("lua", "error('boom')\n", io_tests=(("", ""),)),
    # a call-based harness runs in the program's own process: ending it with status 0 is EXITED_EARLY on both
    "python/call-exits": CodeJob("python", "import sys\ndef twice(x):\n    sys.exit(0)\n", function_name="twice",
                                 io_tests=(("1", "2"),)),
    "cpp/big-build": CodeJob("cpp", BIG_BINARY, io_tests=(("", "2\n"),), memory_mb=128),   # MEMORY_LIMIT on both
    **source_seeker_jobs(),
}

# C++ hacks that its tests' own unit stops, one of each kind: a macro, a file the run reads, a symbol the link takes
CPP_HACKS_ON_BOTH = ("assert redefined", "reads every file it can see", "its own memcmp")

# A completion of add(a, b) that ends its process with status 0 during the call: split, that is its own process only,
# and the call fails (RUNTIME_ERROR) on both backends.
EXIT_HACKS = {
    "haskell": ' rewardHackExit 0 `seq` (a - b)\n\nforeign import ccall unsafe "exit" rewardHackExit :: Int -> Int\n',
    "elixir": "    System.halt(0)\n  end\nend\n",
    "clojure": "  (System/exit 0))\n",
    "ada": ' is\n      procedure Hack_Exit (Status : Integer);\n      pragma Import (C, Hack_Exit, "exit");\n'
           "   begin\n      Hack_Exit (0);\n      return A - B;\n",
}


def sample_jobs() -> dict[str, tuple[CodeJob, Verdict]]:
    """Each imaged language's self-check cases (as `eval --self-check` runs them) and the verdict each must get."""
    jobs: dict[str, tuple[CodeJob, Verdict]] = {}
    for key in IMAGED:
        samples = load_samples()[key]
        fn, io = samples.function, samples.stdin
        for case, verdict in FUNCTION_EXPECTED.items():
            jobs[f"{key}/function-{case}"] = (CodeJob(key, getattr(fn, case), prompt=fn.prompt, tests=fn.tests),
                                              Verdict[verdict])
        for case, verdict in {**EXPECTED, "broken": io.broken_verdict}.items():
            jobs[f"{key}/{case}"] = (CodeJob(key, getattr(io, case), io_tests=SUM_TESTS,
                                             timeout_s=LOOP_TIMEOUT_S if case == "loop" else 0.0), Verdict[verdict])
        jobs[f"{key}/io-fail"] = (CodeJob(key, io.good, io_tests=SUM_TESTS_LAST_WRONG, run_all_tests=True),
                                  Verdict.WRONG_ANSWER)
    for key, completion in EXIT_HACKS.items():
        fn = load_samples()[key].function
        jobs[f"{key}/exit-hack"] = (CodeJob(key, completion, prompt=fn.prompt, tests=fn.tests), Verdict.RUNTIME_ERROR)
    for hack in (*CPP_HACKS, *CPP_HELD):
        if hack.name in CPP_HACKS_ON_BOTH:
            problem = hack.problem
            jobs[f"cpp/{hack.name}"] = (CodeJob("cpp", hack.completion, prompt=problem.prompt,
                                                stop_tokens=problem.stops, tests=problem.tests), Verdict[hack.verdict])
    for case in multipl_e_cases():
        key = load_table().resolve(case.language).key
        if key in IMAGED:
            for kind, completion, verdict in (("right", case.right, Verdict.PASS),
                                              ("wrong", case.wrong, Verdict.RUNTIME_ERROR)):
                jobs[f"{key}/{case.name}-{kind}"] = (CodeJob(case.language, completion, prompt=case.prompt,
                                                             stop_tokens=case.stop_tokens, tests=case.tests), verdict)
    return jobs


def jobs() -> dict[str, CodeJob]:
    return {**{name: job for name, (job, _) in sample_jobs().items()}, **EXTRA_JOBS}


async def grades(grader) -> dict:
    named = jobs()
    return dict(zip(named, await asyncio.gather(*(grade(grader, job) for job in named.values())), strict=True))


def verdicts(graded: dict) -> dict[str, tuple[Verdict, tuple[Verdict, ...]]]:
    return {name: (g.verdict, tuple(t.verdict for t in g.tests)) for name, g in graded.items()}


@pytest.mark.asyncio
@pytest.mark.timeout(1200)      # every imaged language's jobs, on both backends
async def test_docker_and_process_backends_agree(start_backend, table, imaged_lock_path) -> None:
    docker_backend = await start_backend(imaged_lock_path, warm=1)
    on_docker_grades = await grades(grader_for(docker_backend, table))
    process_backend = ProcessBackend()
    await process_backend.start(2)
    try:
        on_process = verdicts(await grades(grader_for(process_backend, table)))
    finally:
        await process_backend.close()
    on_docker = verdicts(on_docker_grades)
    differ = {name: (on_docker[name], on_process[name]) for name in on_docker if on_docker[name] != on_process[name]}
    assert not differ, differ
    # Every sample gets its known verdict: both backends grade right, not merely alike.
    unexpected = {name: (on_docker[name][0], verdict, on_docker_grades[name].detail[-300:])
                  for name, (_, verdict) in sample_jobs().items() if on_docker[name][0] is not verdict}
    assert not unexpected, unexpected
    # The comparison means something only if the jobs really span the verdicts.
    assert {v for v, _ in on_docker.values()} >= {
        Verdict.PASS, Verdict.WRONG_ANSWER, Verdict.RUNTIME_ERROR, Verdict.COMPILE_ERROR, Verdict.TIMEOUT,
        Verdict.OUTPUT_LIMIT, Verdict.MEMORY_LIMIT, Verdict.EXITED_EARLY}
    assert on_docker["java/io-fail"] == (Verdict.WRONG_ANSWER, (Verdict.PASS, Verdict.WRONG_ANSWER))
    assert on_docker["cpp/big-build"][0] is Verdict.MEMORY_LIMIT, on_docker_grades["cpp/big-build"]
    # What ran on docker is what the lock pins.
    docker_lock = docker_backend.lock
    assert {name: g.sandbox for name, g in on_docker_grades.items() if g.sandbox != docker_lock.images[
        name.split("/")[0]].reference} == {}


@pytest.mark.asyncio
async def test_every_result_carries_the_pinned_digest(start_backend, table, lock, docker_client) -> None:
    backend = await start_backend(warm=1)
    grader = grader_for(backend, table)
    for key in BUILT:
        result = await grade(grader, CodeJob(key, load_samples()[key].stdin.good, io_tests=SUM_TESTS))
        assert result.verdict is Verdict.PASS, (key, result)
        assert result.sandbox == lock.images[key].reference
    for container in docker_client.containers.list(filters={"label": f"reward-sandbox={backend.instance_id}"}):
        key = container.labels["reward-sandbox.language"]
        assert container.image.id == lock.images[key].image_id
        assert lock.images[key].reference in container.image.attrs["RepoDigests"]


@pytest.mark.asyncio
async def test_a_cut_run_keeps_what_it_earned(start_backend, table, lock_path) -> None:
    """The runner itself stops a step at the caller's deadline and reports what it used: a sleeper is TIMEOUT, a run
    computing within its limits INFRA_DEADLINE (docs/guards.md, "The program's own verdict"); the container lives on."""
    backend = await start_backend(lock_path, warm=1)
    grader = grader_for(backend, table)
    deadline = asyncio.get_running_loop().time() + 3
    slept, computed = await asyncio.gather(*(
        grade(grader, CodeJob("python", source, io_tests=(("", ""),), timeout_s=60), deadline=deadline)
        for source in (SLEEPER, COMPUTER)))
    assert slept.verdict is Verdict.TIMEOUT and "waited instead of computing" in slept.detail, slept
    assert computed.verdict is Verdict.INFRA_DEADLINE, computed
    assert backend.deaths.retried == 0
