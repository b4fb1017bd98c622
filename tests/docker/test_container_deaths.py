"""A container that dies under a step is never the program's fault (docs/guards.md, "Sandbox deaths"), on the docker
backend: the step goes again, once, in a fresh container where its workspace is built again (its files, its compile).

HumanEval's canonical and broken programs go through a real docker-backend server while its containers' main processes
(the runners) are SIGKILLed at random, many times per batch (each such kill is a `docker kill`). No canonical program
gets a model-fault verdict, no broken one passes, at most a few are INFRA, none is lost, and a clean batch right
afterwards grades right. A compiled program whose container is `docker kill`ed under its run passes; a program that
kills itself, or exceeds its memory, keeps its verdict; the backend counts what happened.
"""

from __future__ import annotations

import asyncio
import os

import docker
import pytest

from reward_server.client import RewardClient
from reward_server.graders.code import CodeJob
from reward_server.verdicts import Verdict
from sandboxes.backends.docker.backend import LABEL, LABEL_LANGUAGE
from sandboxes.sandbox_deaths import SANDBOX_FAILED, UNEXPLAINED_KILL
from tests.docker.conftest import grade, grader_for
from tests.sandbox_killers import cmdline, descendants, grade_while_killing, grades_clean, humaneval_batch

ROUNDS = 2
INTERVAL_S = 1.0


def runners(client: docker.DockerClient) -> list[int]:
    """The main process of each running python sandbox container (its runner): SIGKILLing it is a `docker kill`."""
    containers = client.containers.list(filters={"label": [LABEL, f"{LABEL_LANGUAGE}=python"]}, ignore_removed=True)
    return [pid for container in containers if (pid := container.attrs["State"]["Pid"])]


@pytest.fixture
def docker_env(monkeypatch, engine, lock_path):
    monkeypatch.setenv("DOCKER_HOST", engine.url)
    monkeypatch.setenv("REWARD_SANDBOX_LOCK", str(lock_path))


def test_container_deaths_are_never_the_program_s_fault(docker_env, start_server, docker_client) -> None:
    server = start_server("--backend", "docker", "--workers", "4", "--warm", "4", "--cache-size", "0")
    batch = humaneval_batch()
    with RewardClient(server.address) as client:
        grade_while_killing(client, batch, lambda: runners(docker_client), INTERVAL_S, ROUNDS, timeout_s=600)
        grades_clean(client, batch)
    assert server.process.poll() is None


SLOW_SUM = ("#include <iostream>\n#include <unistd.h>\n"
            "int main() { long a, b; std::cin >> a >> b; usleep(1500000); std::cout << a + b << std::endl; }\n")
SELF_KILL = "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n"
HOG = "chunks = []\nwhile True:\n    chunks.append(bytearray(1 << 20))\n"   # the OOM killer takes it


@pytest.mark.asyncio
async def test_a_killed_container_is_rebuilt_and_a_program_s_own_death_keeps_its_verdict(
        start_backend, table, docker_client) -> None:
    backend = await start_backend(warm=1, warm_languages=["python", "cpp"])
    grader = grader_for(backend, table)

    async def kill_the_run_s_container() -> None:
        """`docker kill` the container once its program (./main, after the compile) runs."""
        while True:
            containers = await asyncio.to_thread(docker_client.containers.list, ignore_removed=True,
                                                 filters={"label": [LABEL, f"{LABEL_LANGUAGE}=cpp"]})
            for container in containers:
                runner = container.attrs["State"]["Pid"]
                if any(cmdline(pid)[:1] == ["./main"] for pid in descendants(runner)):
                    await asyncio.to_thread(docker_client.api.kill, container.id)
                    return
            await asyncio.sleep(0.05)

    killing = asyncio.create_task(kill_the_run_s_container())
    summed = await grade(grader, CodeJob("cpp", SLOW_SUM, io_tests=(("2 3\n", "5\n"),)))
    await asyncio.wait_for(killing, 1)
    assert summed.verdict is Verdict.PASS, summed
    assert dict(backend.deaths.by_cause) == {SANDBOX_FAILED: 1, UNEXPLAINED_KILL: 0} and backend.deaths.retried == 1

    killed = await grade(grader, CodeJob("python", SELF_KILL, io_tests=(("", ""),)))
    assert killed.verdict is Verdict.RUNTIME_ERROR and "killed by SIGKILL" in killed.detail, killed
    assert dict(backend.deaths.by_cause) == {SANDBOX_FAILED: 1, UNEXPLAINED_KILL: 2} and backend.deaths.retried == 2
    hog = await grade(grader, CodeJob("python", HOG, io_tests=(("", ""),), memory_mb=256))
    assert hog.verdict is Verdict.MEMORY_LIMIT and "OOM killer" in hog.detail, hog   # the runner saw oom_kill rise
    assert backend.deaths.retried == 2

    # The attach stream failing under an idle container (CI once saw EBADF in the prepare that followed): it is replaced
    # before a workspace takes it. Its socket's descriptor becomes /dev/null's, no socket's.
    while not backend.stats()["python"].idle:   # the hog's container is being replaced
        await asyncio.sleep(0.05)
    [idle] = backend._idle["python"]
    replaced = backend.stats()["python"].replaced
    with open(os.devnull, "rb") as devnull:
        os.dup2(devnull.fileno(), idle.channel.sock.fileno())
    rerun = await grade(grader, CodeJob("python", "print(6 * 7)\n", io_tests=(("", "42\n"),)))
    assert rerun.verdict is Verdict.PASS, rerun
    assert backend.stats()["python"].replaced == replaced + 1 and backend.deaths.retried == 2
