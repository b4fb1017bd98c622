"""The result cache: identical tasks graded once, only code-determined verdicts kept, cancellation shared safely."""

from __future__ import annotations

import asyncio

import pytest

from reward_server.client import RewardClient
from reward_server.graders.code import CodeGrade
from reward_server.result_cache import ResultCache
from reward_server.verdicts import Verdict
from tests.candidates import python_script, verdict_name

RANDOM = "import random\nprint(random.random())\n"


def test_identical_tasks_share_one_grading(server_address: str) -> None:
    with RewardClient(server_address) as client:
        first = client.score([python_script("a", RANDOM, "x"), python_script("b", RANDOM, "x")])
        again = client.score([python_script("c", RANDOM, "x")])
        distinct = client.score([python_script("d", RANDOM + "# other\n", "x")])
    assert [verdict_name(r) for r in first + again] == ["WRONG_ANSWER"] * 3
    # the detail quotes the random number printed: one run served all three identical tasks
    assert first[0].detail == first[1].detail == again[0].detail
    assert [r.id for r in first + again] == ["a", "b", "c"]
    assert distinct[0].detail != first[0].detail


def test_timeouts_are_not_kept(server_address: str) -> None:
    loop = python_script("loop", "while True:\n    pass\n", "", timeout_s=1)
    with RewardClient(server_address) as client:
        for _ in range(2):
            [result] = client.score([loop])
            assert verdict_name(result) == "TIMEOUT"
            assert result.elapsed_s >= 0.9  # it really ran again: none times out much sooner (the kernel's tick)


@pytest.mark.asyncio
async def test_a_shared_grading_survives_one_caller_leaving() -> None:
    cache = ResultCache(capacity=8)
    started = asyncio.Event()
    runs = 0

    async def grade() -> CodeGrade:
        nonlocal runs
        runs += 1
        started.set()
        await asyncio.sleep(0.1)
        return CodeGrade(Verdict.PASS)

    leaving = asyncio.create_task(cache.grade(b"k", grade))
    await started.wait()
    staying = asyncio.create_task(cache.grade(b"k", grade))
    await asyncio.sleep(0)
    leaving.cancel()
    result, shared = await staying
    assert result.verdict is Verdict.PASS and shared and runs == 1
    assert (await cache.grade(b"k", grade)) == (result, True) and runs == 1


@pytest.mark.asyncio
async def test_grading_stops_when_every_caller_left_and_infra_is_not_kept() -> None:
    cache = ResultCache(capacity=8)
    cancelled = asyncio.Event()

    async def slow() -> CodeGrade:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return CodeGrade(Verdict.PASS)

    caller = asyncio.create_task(cache.grade(b"k", slow))
    await asyncio.sleep(0.01)
    caller.cancel()
    await asyncio.wait_for(cancelled.wait(), 5)

    async def infra() -> CodeGrade:
        return CodeGrade(Verdict.INFRA_SANDBOX_ERROR)

    assert (await cache.grade(b"k", infra))[1] is False
    assert (await cache.grade(b"k", infra))[1] is False  # not kept: asked again, graded again
