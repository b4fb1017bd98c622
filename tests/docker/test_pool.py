"""Warm pools: replacement after timeouts and kills, recycling, stats, leftovers, and nothing left at shutdown."""

from __future__ import annotations

import asyncio
import socket
import subprocess

import pytest

from reward_server.graders.code import CodeJob
from reward_server.verdicts import Verdict
from sandboxes.backends.docker.backend import LABEL, LABEL_LANGUAGE, LABEL_OWNER
from sandboxes.languages.samples import SUM_TESTS, load_samples
from sandboxes.sandbox_deaths import SANDBOX_FAILED
from tests.docker.conftest import grade, grader_for, own_containers

PASSING = CodeJob("python", load_samples()["python"].stdin.good, io_tests=SUM_TESTS)


async def settle(backend, client, key: str, total: int) -> None:
    """Wait (bounded) until the pool's background replacement has brought the language back to `total` idle
    containers, and the engine holds just those (what was replaced is removed)."""
    for _ in range(300):
        stats = backend.stats()[key]
        held = {slot.container_id for slot in backend.slots() if slot.language == key}
        if stats.total == total and stats.idle == total and held == language_ids(client, backend, key):
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"pool did not settle: {backend.stats()[key]}")


def language_ids(client, backend, key: str) -> set[str]:
    return {c.id for c in own_containers(client, backend) if c.labels[LABEL_LANGUAGE] == key}


def python_ids(client, backend) -> set[str]:
    return language_ids(client, backend, "python")


def speak_garbage(client, container_id: str) -> None:
    """A line the container's runner rejects, on its stdin through an attach of the test's own; back when the runner
    has answered (on every attach, the backend's too)."""
    attached = client.containers.get(container_id).attach_socket(params={"stdin": 1, "stdout": 1, "stream": 1})
    sock = attached._sock      # docker-py exposes the hijacked connection only through its private _sock
    try:
        sock.settimeout(10)
        sock.sendall(b"\xff\n")
        assert sock.recv(1 << 16), "the runner did not answer"
    finally:
        attached.close()


@pytest.mark.asyncio
async def test_timed_out_container_is_replaced_and_pool_keeps_serving(start_backend, table, docker_client) -> None:
    backend = await start_backend(warm=1, warm_languages=["python"])
    grader = grader_for(backend, table)
    before = python_ids(docker_client, backend)
    assert len(before) == 1
    result = await grade(grader, CodeJob("python", "while True:\n    pass\n", io_tests=(("", ""),), timeout_s=1))
    assert result.verdict is Verdict.TIMEOUT
    await settle(backend, docker_client, "python", 1)
    after = python_ids(docker_client, backend)
    assert len(after) == 1 and not after & before
    assert backend.stats()["python"].replaced == 1
    assert (await grade(grader, PASSING)).verdict is Verdict.PASS


@pytest.mark.asyncio
async def test_container_killed_mid_run_twice_is_infra_and_replaced(start_backend, table, docker_client) -> None:
    """Killed once, the run goes again in a fresh container (sandbox_deaths.py); killed there too, it is infra."""
    backend = await start_backend(warm=1, warm_languages=["python"])
    grader = grader_for(backend, table)
    running = asyncio.create_task(grade(grader, CodeJob("python", "import time\ntime.sleep(60)\n",
                                                         io_tests=(("", ""),), timeout_s=120)))
    killed: list[str] = []
    for _ in range(400):
        serving = [slot.container_id for slot in backend.slots() if slot.busy and slot.container_id not in killed]
        if serving:
            await asyncio.sleep(0.5)
            await asyncio.to_thread(docker_client.containers.get(serving[0]).kill)
            killed += serving
            if len(killed) == 2:
                break
        await asyncio.sleep(0.05)
    result = await asyncio.wait_for(running, 60)
    assert result.verdict is Verdict.INFRA_SANDBOX_ERROR, result
    assert backend.deaths.by_cause[SANDBOX_FAILED] == 2 and backend.deaths.retried == 1
    await settle(backend, docker_client, "python", 1)
    assert not set(killed) & python_ids(docker_client, backend)
    assert (await grade(grader, PASSING)).verdict is Verdict.PASS


@pytest.mark.asyncio
async def test_containers_are_recycled_after_k_jobs_and_stats_count(start_backend, table, docker_client) -> None:
    backend = await start_backend(warm=1, warm_languages=["python"], recycle_after=2)
    grader = grader_for(backend, table, slots=1)
    seen: set[str] = set()
    for _ in range(5):
        assert (await grade(grader, PASSING)).verdict is Verdict.PASS
        await settle(backend, docker_client, "python", 1)
        seen |= python_ids(docker_client, backend)
    stats = backend.stats()["python"]
    assert stats.recycled == 2 and stats.jobs == 5 and stats.replaced == 0
    assert len(seen) == 3
    assert stats.busy == 0 and stats.idle == 1


@pytest.mark.asyncio
async def test_on_demand_pool_starts_and_removes_a_container_per_workspace(start_backend, table, docker_client) -> None:
    backend = await start_backend(warm=0)
    assert own_containers(docker_client, backend) == []
    grader = grader_for(backend, table)
    results = await asyncio.gather(*(grade(grader, PASSING) for _ in range(3)))
    assert [r.verdict for r in results] == [Verdict.PASS] * 3
    await settle(backend, docker_client, "python", 0)
    assert own_containers(docker_client, backend) == []
    assert backend.stats()["python"].started == 3


@pytest.mark.asyncio
async def test_garbage_answer_is_a_lost_container_replaced_and_run_again(start_backend, table, docker_client) -> None:
    """A program cannot forge the runner's protocol: it writes to its own pipes, not the runner's."""
    backend = await start_backend(warm=1, warm_languages=["python"])
    grader = grader_for(backend, table)
    forged = "import os\nos.write(1, b'}{not json\\n')\nos.close(1)\n"
    [before] = backend.slots()
    assert (await grade(grader, CodeJob("python", forged, io_tests=(("", "x"),)))).verdict is Verdict.WRONG_ANSWER
    [box] = backend.slots()       # the forged line went to the program's own pipes: the container is kept
    assert (box.container_id, box.busy, box.jobs) == (before.container_id, False, before.jobs + 1)
    assert backend.stats()["python"].replaced == 0
    # A runner that itself answers garbage (spoken to in a way it rejects) is lost: it is replaced, and the run goes
    # again in a fresh container (sandbox_deaths.py).
    await asyncio.to_thread(speak_garbage, docker_client, box.container_id)
    result = await grade(grader, PASSING)
    assert result.verdict is Verdict.PASS, result
    assert backend.deaths.by_cause[SANDBOX_FAILED] == 1 and backend.deaths.retried == 1
    await settle(backend, docker_client, "python", 1)
    assert backend.stats()["python"].replaced == 1
    assert (await grade(grader, PASSING)).verdict is Verdict.PASS


@pytest.mark.asyncio
async def test_no_container_left_after_shutdown(start_backend, table, docker_client) -> None:
    backend = await start_backend(warm=2)
    assert len(own_containers(docker_client, backend)) == 2 * 5
    assert (await grade(grader_for(backend, table), PASSING)).verdict is Verdict.PASS
    await backend.close()
    assert own_containers(docker_client, backend) == []


@pytest.mark.asyncio
async def test_leftovers_of_dead_instances_are_removed_at_start(start_backend, lock, docker_client) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    host = socket.gethostname()
    image = lock.images["python"].reference
    orphan = docker_client.containers.create(image, labels={LABEL: "dead-instance", LABEL_OWNER: f"{host}:{dead.pid}"})
    alive = docker_client.containers.create(image, labels={LABEL: "live-instance", LABEL_OWNER: f"{host}:1"})
    try:
        await start_backend(warm=0)
        remaining = {c.id for c in docker_client.containers.list(all=True, filters={"label": LABEL})}
        assert orphan.id not in remaining
        assert alive.id in remaining
    finally:
        alive.remove(force=True)
