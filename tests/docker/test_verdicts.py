"""The same grading jobs through the docker backend and the process backend give the same verdicts."""

from __future__ import annotations

import asyncio

import pytest

from reward_server.graders.code import CodeJob
from reward_server.verdicts import Verdict
from sandboxes.backends.process import ProcessBackend
from tests.docker.conftest import BUILT, grade, grader_for
from tests.programs import IO_FAIL, IO_PASS, PROGRAMS

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
}


def jobs() -> dict[str, CodeJob]:
    table: dict[str, CodeJob] = {}
    for key in BUILT:
        p = PROGRAMS[key]
        table[f"{key}/fn-pass"] = CodeJob(key, p.completion, prompt=p.prompt, tests=p.tests)
        table[f"{key}/fn-fail"] = CodeJob(key, p.wrong, prompt=p.prompt, tests=p.tests)
        table[f"{key}/io-pass"] = CodeJob(key, p.io, io_tests=IO_PASS)
        table[f"{key}/io-fail"] = CodeJob(key, p.io, io_tests=IO_FAIL, run_all_tests=True)
    return {**table, **EXTRA_JOBS}


async def verdicts(grader) -> dict[str, tuple[Verdict, tuple[Verdict, ...]]]:
    named = jobs()
    grades = await asyncio.gather(*(grade(grader, job) for job in named.values()))
    return {name: (g.verdict, tuple(t.verdict for t in g.tests)) for name, g in zip(named, grades, strict=True)}


@pytest.mark.asyncio
async def test_docker_and_process_backends_agree(start_backend, table, lock) -> None:
    docker_backend = await start_backend(warm=1)
    on_docker = await verdicts(grader_for(docker_backend, table))
    process_backend = ProcessBackend()
    await process_backend.start(2)
    try:
        on_process = await verdicts(grader_for(process_backend, table))
    finally:
        await process_backend.close()
    differ = {name: (on_docker[name], on_process[name]) for name in on_docker if on_docker[name] != on_process[name]}
    assert not differ, differ
    # The comparison means something only if the jobs really span the verdicts.
    assert {v for v, _ in on_docker.values()} >= {
        Verdict.PASS, Verdict.WRONG_ANSWER, Verdict.RUNTIME_ERROR, Verdict.COMPILE_ERROR, Verdict.TIMEOUT,
        Verdict.OUTPUT_LIMIT, Verdict.MEMORY_LIMIT}
    assert on_docker["java/io-fail"] == (Verdict.WRONG_ANSWER, (Verdict.PASS, Verdict.WRONG_ANSWER))


@pytest.mark.asyncio
async def test_every_result_carries_the_pinned_digest(start_backend, table, lock, docker_client) -> None:
    backend = await start_backend(warm=1)
    grader = grader_for(backend, table)
    for key in BUILT:
        p = PROGRAMS[key]
        result = await grade(grader, CodeJob(key, p.io, io_tests=IO_PASS))
        assert result.verdict is Verdict.PASS, (key, result)
        assert result.sandbox == lock.images[key].reference
    for container in docker_client.containers.list(filters={"label": f"reward-sandbox={backend.instance_id}"}):
        key = container.labels["reward-sandbox.language"]
        assert container.image.id == lock.images[key].image_id
        assert lock.images[key].reference in container.image.attrs["RepoDigests"]
