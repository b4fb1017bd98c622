"""A caller's deadline never hides a program's fault and never costs a batch its call (issue 28): the reply leaves
before the deadline with every finished result; a run the deadline cut keeps the verdict it had already earned (a
sleeper's TIMEOUT, a run past its CPU budget); INFRA_DEADLINE is left for what did not run or was computing within its
limits when it was cut. Through a real server, on both Python paths and in rlimit mode."""

from __future__ import annotations

import time
from collections.abc import Iterator

import grpc
import pytest

from reward_server.loadtest.scrape import scrape, total
from reward_server.pb import reward_pb2, reward_pb2_grpc
from tests.candidates import python_script, verdict_name
from tests.conftest import ServerHandle

WORKERS = 4
SLEEPER = "import time\ntime.sleep(300)\n"
COMPUTER = "x = 0\nwhile True:\n    x += 1\n"    # within its CPU budget when the deadline comes: honest for all we know
# Sequential children that each stay under RLIMIT_CPU: only the tree's total is past the budget, which nothing counts
# while it runs in rlimit mode (the wall-clock backstop would stop it; the deadline comes first).
TREE_SPINNER = """import os
for _ in range(40):
    if os.fork() == 0:
        end = os.times().elapsed + 0.8
        while os.times().elapsed < end:
            pass
        os._exit(0)
    os.wait()
"""


@pytest.fixture(scope="module", ids="-".join,
                params=[(path, limits) for limits in ("auto", "rlimit") for path in ("zygote", "spawn")])
def stub(request: pytest.FixtureRequest) -> Iterator[reward_pb2_grpc.RewardServiceStub]:
    path, limits = request.param
    server = ServerHandle("--workers", str(WORKERS), "--zygote", "on" if path == "zygote" else "off",
                          "--limits", limits, "--metrics-port", "0")
    try:
        with grpc.insecure_channel(server.address) as channel:
            yield reward_pb2_grpc.RewardServiceStub(channel)
        # no cut run, late reply or cancelled grading raised anything the grader did not expect
        assert total(scrape(server.metrics_url), "reward_internal_errors_total") == 0
    finally:
        assert server.stop() == 0, server.stderr_text()


def _timed(call, request: reward_pb2.ScoreRequest, deadline_s: float) -> tuple[list[reward_pb2.ScoreResult], float]:
    started = time.monotonic()
    reply = call(request, timeout=deadline_s)
    results = list(reply.results) if isinstance(reply, reward_pb2.ScoreResponse) else list(reply)
    return results, time.monotonic() - started


def test_a_long_deadline_answers_in_time_with_every_result(stub: reward_pb2_grpc.RewardServiceStub) -> None:
    request = reward_pb2.ScoreRequest(candidates=[
        python_script("sleeper", SLEEPER, "", timeout_s=60),
        python_script("computer", COMPUTER, "", timeout_s=60),
        *(python_script(f"right{i}", f"print({i})", str(i)) for i in range(3))])
    results, elapsed = _timed(stub.Score, request, 10)    # no DEADLINE_EXCEEDED: the reply left in time
    sleeper, computer, *right = results
    assert elapsed < 10
    assert verdict_name(sleeper) == "TIMEOUT" and "waited instead of computing" in sleeper.detail, sleeper
    assert sleeper.HasField("reward") and sleeper.reward == 0.0
    assert verdict_name(computer) == "INFRA_DEADLINE", computer
    assert not computer.HasField("reward")
    assert [verdict_name(r) for r in right] == ["PASS"] * 3, right


@pytest.mark.parametrize("method", ["Score", "ScoreStream"])
def test_what_never_ran_is_infra_deadline(stub: reward_pb2_grpc.RewardServiceStub, method: str) -> None:
    # distinct programs: byte-identical ones would share one grading (the result cache)
    sleepers = [python_script(f"s{i}", f"{SLEEPER}# {i}\n", "", timeout_s=60) for i in range(WORKERS + 2)]
    results, elapsed = _timed(getattr(stub, method), reward_pb2.ScoreRequest(candidates=sleepers), 3)
    assert elapsed < 3
    by_id = {r.id: r for r in results}
    assert sorted(by_id) == sorted(s.id for s in sleepers)
    verdicts = sorted(verdict_name(r) for r in results)
    assert verdicts == ["INFRA_DEADLINE"] * 2 + ["TIMEOUT"] * WORKERS, results
    for result in results:
        if verdict_name(result) == "INFRA_DEADLINE":
            assert "queued" in result.detail or "not graded" in result.detail, result


@pytest.mark.parametrize("limits", ["rlimit", "cgroup"])
def test_a_tree_past_its_cpu_budget_is_timeout_when_the_deadline_cuts_it(start_server, limits: str) -> None:
    from sandboxes.backends.process.host import would_choose
    if limits == "cgroup" and would_choose("cgroup")[0] is None:
        pytest.skip("no writable cgroups on this host")
    server = start_server("--limits", limits, "--zygote", "off")
    with grpc.insecure_channel(server.address) as channel:
        results, elapsed = _timed(reward_pb2_grpc.RewardServiceStub(channel).Score, reward_pb2.ScoreRequest(
            candidates=[python_script("tree", TREE_SPINNER, "", timeout_s=1)]), 3)
    assert elapsed < 3
    assert verdict_name(results[0]) == "TIMEOUT" and "CPU-time limit" in results[0].detail, results[0]
