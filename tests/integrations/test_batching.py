"""The micro-batcher (integrations/batching.py) against a real server: concurrent per-sample calls become few
Score calls (the server's own request counter says how many), each caller gets its own result, a batch is bounded
in size and in how long its first call waits, and a cancelled caller takes nothing from the others."""

from __future__ import annotations

import asyncio
import time

import pytest

from integrations import batching
from integrations.batching import MicroBatcher
from reward_server.client import SERVER_ENV, AsyncRewardClient, ServerUnavailable
from reward_server.loadtest.scrape import scrape, total
from reward_server.pb import reward_pb2


def equation(candidate_id: str, says_true: bool) -> reward_pb2.Candidate:
    """Graded without a sandbox: PASS when the response's verdict is TRUE."""
    return reward_pb2.Candidate(id=candidate_id, equation=reward_pb2.EquationTask(
        response=f"VERDICT: {'TRUE' if says_true else 'FALSE'}", expected=True))


def sleeper(candidate_id: str, seconds: float) -> reward_pb2.Candidate:
    """A program that passes after `seconds`: keeps a batch on the server while a test acts."""
    return reward_pb2.Candidate(id=candidate_id, code=reward_pb2.CodeTask(
        language="python", completion=f"import time\ntime.sleep({seconds})\nprint(input())\n",
        io_tests=[reward_pb2.IOTest(stdin="x\n", expected_stdout="x\n")]))


def score_calls(server) -> int:
    return int(total(scrape(server.metrics_url), "reward_requests_total", method="Score"))


async def gather_scores(address: str, candidates: list[reward_pb2.Candidate], **options) -> list:
    async with AsyncRewardClient(address) as client:
        batcher = MicroBatcher(client, **options)
        return await asyncio.gather(*(batcher.score(c) for c in candidates))


def test_concurrent_calls_share_one_score_call_and_each_gets_its_own_result(start_server) -> None:
    server = start_server("--metrics-port", "0")
    candidates = [equation(f"c{i}", says_true=i % 3 != 0) for i in range(50)]
    results = asyncio.run(gather_scores(server.address, candidates))
    assert [r.id for r in results] == [c.id for c in candidates]
    assert [reward_pb2.Verdict.Name(r.verdict) for r in results] == [
        "WRONG_ANSWER" if i % 3 == 0 else "PASS" for i in range(50)]
    assert {r.index for r in results} == {0}   # each as a request of its own
    assert score_calls(server) == 1


def test_a_batch_holds_at_most_max_batch_candidates(start_server) -> None:
    server = start_server("--metrics-port", "0")
    candidates = [equation(f"c{i}", says_true=True) for i in range(10)]
    results = asyncio.run(gather_scores(server.address, candidates, max_batch=4))
    assert [r.id for r in results] == [c.id for c in candidates]
    assert score_calls(server) == 3   # 4 + 4 + 2


def test_the_first_call_of_a_batch_waits_max_delay_and_no_longer(start_server) -> None:
    """A lone call is sent once its delay is up, not held for company; calls further apart than the delay go in
    separate batches."""
    server = start_server("--metrics-port", "0")
    delay_s = 0.5

    async def run() -> tuple[float, list]:
        async with AsyncRewardClient(server.address) as client:
            batcher = MicroBatcher(client, max_delay_s=delay_s)
            started = time.monotonic()
            await batcher.score(equation("warm", says_true=True))
            lone = time.monotonic() - started

            async def later(i: int) -> reward_pb2.ScoreResult:
                await asyncio.sleep(i * 2 * delay_s)
                return await batcher.score(equation(f"w{i}", says_true=True))
            return lone, await asyncio.gather(*(later(i) for i in range(3)))

    lone, results = asyncio.run(run())
    assert delay_s <= lone < delay_s + 5.0
    assert [r.id for r in results] == ["w0", "w1", "w2"]
    assert score_calls(server) == 4


def test_a_cancelled_caller_cancels_neither_the_batch_nor_the_other_callers(start_server) -> None:
    server = start_server("--metrics-port", "0")

    async def run() -> tuple[list, list]:
        async with AsyncRewardClient(server.address) as client:
            batcher = MicroBatcher(client, max_delay_s=0.2)
            # cancelled while its batch is still gathering: its candidate is not sent
            early = [asyncio.create_task(batcher.score(equation(f"e{i}", says_true=True))) for i in range(4)]
            await asyncio.sleep(0.05)
            early[1].cancel()
            early_results = await asyncio.gather(*early, return_exceptions=True)
            # cancelled while its batch is being graded (sent at 0.2 s, graded for over a second)
            graded = [asyncio.create_task(batcher.score(sleeper(f"s{i}", 1.0))) for i in range(3)]
            await asyncio.sleep(0.7)
            graded[0].cancel()
            return early_results, await asyncio.gather(*graded, return_exceptions=True)

    early, graded = asyncio.run(run())
    assert isinstance(early[1], asyncio.CancelledError) and isinstance(graded[0], asyncio.CancelledError)
    assert [(r.id, reward_pb2.Verdict.Name(r.verdict)) for r in early[:1] + early[2:] + graded[1:]] == [
        ("e0", "PASS"), ("e2", "PASS"), ("e3", "PASS"), ("s1", "PASS"), ("s2", "PASS")]
    assert score_calls(server) == 2
    assert total(scrape(server.metrics_url), "reward_candidates_total") == 3 + 3   # e1 never sent


def test_a_failed_call_fails_every_caller_of_its_batch(start_server) -> None:
    server = start_server()
    address = server.address
    server.stop()

    async def run() -> list:
        async with AsyncRewardClient(address) as client:
            batcher = MicroBatcher(client)
            return await asyncio.gather(*(batcher.score(equation(f"c{i}", True)) for i in range(5)),
                                        return_exceptions=True)

    failures = asyncio.run(run())
    assert all(isinstance(f, ServerUnavailable) for f in failures) and len({id(f) for f in failures}) == 1


def test_score_opens_one_batcher_per_loop_and_address(start_server, monkeypatch: pytest.MonkeyPatch) -> None:
    server = start_server("--metrics-port", "0")
    monkeypatch.setenv(SERVER_ENV, server.address)

    async def run() -> tuple[list, set[int]]:
        results = await asyncio.gather(*(batching.score(equation(f"c{i}", True), caller="test") for i in range(20)))
        batchers = {id(await batching.batcher()), id(await batching.batcher(server.address))}
        return results, batchers

    for _ in range(2):   # a second loop opens its own client (a channel of the first belongs to that loop)
        results, batchers = asyncio.run(run())
        assert [r.id for r in results] == [f"c{i}" for i in range(20)] and len(batchers) == 1
    assert score_calls(server) == 2

    monkeypatch.delenv(SERVER_ENV)
    with pytest.raises(ValueError, match=SERVER_ENV):
        asyncio.run(batching.score(equation("c", True)))
