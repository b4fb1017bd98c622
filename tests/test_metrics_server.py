"""Observability of a real server: /metrics after real work, health NOT_SERVING while draining, request logs."""

from __future__ import annotations

import re
import signal
import threading
import time

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from reward_server.client import RewardClient
from reward_server.loadtest.scrape import scrape, total
from reward_server.pb import reward_pb2


def code(candidate_id: str, language: str, source: str, *, stdin: str = "1 2\n", expected: str = "3\n",
         timeout_s: float = 0.0) -> reward_pb2.Candidate:
    return reward_pb2.Candidate(id=candidate_id, code=reward_pb2.CodeTask(
        language=language, completion=source, io_tests=[reward_pb2.IOTest(stdin=stdin, expected_stdout=expected)],
        timeout_s=timeout_s))


PY_SUM = "a, b = map(int, input().split())\nprint(a + b)\n"


def test_metrics_endpoint_reflects_graded_work(start_server) -> None:
    server = start_server("--metrics-port", "0", "--workers", "2")
    url = server.metrics_url
    before = scrape(url)
    assert total(before, "reward_pool_slots") == 2 and total(before, "reward_pool_busy") == 0
    batch = [code("py-pass", "py", PY_SUM), code("py-wrong", "python", PY_SUM.replace("+", "-")),
             code("cpp-broken", "cpp", "int main() { return }"), code("nope", "cobol", "DISPLAY 'HI'."),
             reward_pb2.Candidate(id="eq", equation=reward_pb2.EquationTask(response="\\boxed{TRUE}", expected=True))]
    with RewardClient(server.address) as client:
        results = client.score(batch)
        list(client.score_stream(batch[:1]))
    assert [reward_pb2.Verdict.Name(r.verdict) for r in results] == [
        "PASS", "WRONG_ANSWER", "COMPILE_ERROR", "INFRA_UNKNOWN_LANGUAGE", "PASS"]

    after = scrape(url)
    assert total(after, "reward_requests_total", method="Score") == 1
    assert total(after, "reward_requests_total", method="ScoreStream") == 1
    assert total(after, "reward_requests_in_flight") == 0
    assert total(after, "reward_candidates_total", language="python") == 3   # aliases share the key
    assert total(after, "reward_verdicts_total", language="python", verdict="PASS") == 2
    assert total(after, "reward_verdicts_total", language="python", verdict="WRONG_ANSWER") == 1
    assert total(after, "reward_verdicts_total", language="cpp", verdict="COMPILE_ERROR") == 1
    assert total(after, "reward_verdicts_total", language="equation", verdict="PASS") == 1
    assert total(after, "reward_infra_errors_total", language="unknown", verdict="INFRA_UNKNOWN_LANGUAGE") == 1
    assert total(after, "reward_infra_errors_total") == 1
    assert total(after, "reward_stage_seconds_count", language="cpp", stage="compile") == 1
    assert total(after, "reward_stage_seconds_count", language="cpp", stage="run") == 0   # never ran
    # the streamed repeat of py-pass is answered by the result cache: no second run, one cache hit
    assert total(after, "reward_cache_lookups_total", outcome="hit") == 1
    assert total(after, "reward_cache_lookups_total", outcome="miss") == 4
    assert total(after, "reward_stage_seconds_count", language="python", stage="run") == 2
    assert total(after, "reward_stage_seconds_count", language="python", stage="queue") == 2
    assert total(after, "reward_stage_seconds_count", language="python", stage="compile") == 0
    assert total(after, "reward_candidate_seconds_count", language="python") == 3
    assert total(after, "reward_pool_busy") == 0 and total(after, "reward_queue_depth") == 0


def test_health_reports_not_serving_while_draining_and_work_finishes(start_server) -> None:
    server = start_server("--workers", "1", "--grace", "30", "--metrics-port", "0")
    url = server.metrics_url
    slow = [code(f"slow-{i}", "python", "import time\ntime.sleep(1.5)\nprint(3)\n") for i in range(2)]
    statuses: list[int] = []
    with grpc.insecure_channel(server.address) as channel:
        watch = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest(), timeout=60)
        statuses.append(next(watch).status)
        with RewardClient(server.address) as client:
            results: list = []
            scoring = threading.Thread(target=lambda: results.extend(client.score(slow)))
            scoring.start()
            give_up = time.monotonic() + 30
            while total(scrape(url), "reward_pool_busy") < 1:   # wait until the slow batch is running
                assert time.monotonic() < give_up, "the slow batch never started"
                time.sleep(0.05)
            server.process.send_signal(signal.SIGTERM)
            statuses.append(next(watch).status)
            scoring.join(60)
        watch.cancel()
    assert statuses == [health_pb2.HealthCheckResponse.SERVING, health_pb2.HealthCheckResponse.NOT_SERVING]
    assert [r.verdict for r in results] == [reward_pb2.PASS, reward_pb2.PASS]   # in-flight work drained
    assert server.process.wait(60) == 0


def test_one_structured_log_line_per_request(start_server) -> None:
    server = start_server()
    with RewardClient(server.address) as client:
        client.score([code("a", "python", PY_SUM), code("b", "python", PY_SUM)], caller="grpo")
        client.score([code("c", "python", PY_SUM)], priority=reward_pb2.EVAL, caller="eval")
    server.stop()
    lines = [line for line in server.stderr_text().splitlines() if "request=" in line]
    pattern = r"request=([0-9a-f]{12}) caller=(\S+) priority=(\w+) candidates=(\d+) code=(\d+) elapsed_s=[\d.]+"
    parsed = [re.search(pattern, line).groups() for line in lines]
    assert [p[1:] for p in parsed] == [("grpo", "TRAINING", "2", "2"), ("eval", "EVAL", "1", "1")]
    assert parsed[0][0] != parsed[1][0]   # each request has its own id
