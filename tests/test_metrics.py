"""ServerMetrics: what the recording API puts on the /metrics endpoint, read back over real HTTP."""

from __future__ import annotations

import dataclasses
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from reward_server.metrics import ServerMetrics


@dataclasses.dataclass
class Occupancy:
    slots: int
    busy: int
    queued: int
    sandbox_deaths: dict[str, int] = dataclasses.field(default_factory=dict)
    retried_steps: int = 0


def scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        text = response.read().decode()
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


@pytest.fixture
def metrics():
    m = ServerMetrics()
    yield m
    m.close()


def test_recorded_values_are_served(metrics: ServerMetrics) -> None:
    occupancy = Occupancy(slots=4, busy=1, queued=0)
    metrics.watch_pool(lambda: occupancy)
    metrics.request_started("Score")
    metrics.candidates_received("python", 3)
    metrics.observe_result("python", "PASS", total_s=0.3, queue_s=0.1, compile_s=None, run_s=0.2)
    metrics.observe_result("python", "WRONG_ANSWER", total_s=0.2, queue_s=0.0, run_s=0.2)
    metrics.observe_result("cpp", "INFRA_SANDBOX_ERROR", total_s=0.05, queue_s=0.05)
    metrics.cache_lookup(hit=True)
    metrics.cache_lookup(hit=False)
    metrics.cache_lookup(hit=False)
    occupancy.busy, occupancy.queued = 3, 7
    occupancy.sandbox_deaths, occupancy.retried_steps = {"sandbox_failed": 2, "unexplained_kill": 1}, 3
    port = metrics.serve(0, host="127.0.0.1")

    samples = scrape(port)
    assert samples[("reward_requests_total", (("method", "Score"),))] == 1
    assert samples[("reward_requests_in_flight", ())] == 1
    assert samples[("reward_candidates_total", (("language", "python"),))] == 3
    assert samples[("reward_verdicts_total", (("language", "python"), ("verdict", "PASS")))] == 1
    assert samples[("reward_verdicts_total", (("language", "python"), ("verdict", "WRONG_ANSWER")))] == 1
    assert samples[("reward_infra_errors_total", (("language", "cpp"), ("verdict", "INFRA_SANDBOX_ERROR")))] == 1
    assert ("reward_infra_errors_total", (("language", "python"), ("verdict", "PASS"))) not in samples
    run = (("language", "python"), ("stage", "run"))
    assert samples[("reward_stage_seconds_count", run)] == 2
    assert samples[("reward_stage_seconds_sum", run)] == pytest.approx(0.4)
    assert ("reward_stage_seconds_count", (("language", "python"), ("stage", "compile"))) not in samples
    assert samples[("reward_stage_seconds_count", (("language", "cpp"), ("stage", "queue")))] == 1
    assert samples[("reward_candidate_seconds_count", (("language", "python"),))] == 2
    # pool gauges are read at scrape time, after the occupancy changed
    assert samples[("reward_pool_slots", ())] == 4
    assert samples[("reward_pool_busy", ())] == 3
    assert samples[("reward_pool_idle", ())] == 1
    assert samples[("reward_queue_depth", ())] == 7
    assert samples[("reward_sandbox_deaths_total", (("cause", "sandbox_failed"),))] == 2
    assert samples[("reward_sandbox_deaths_total", (("cause", "unexplained_kill"),))] == 1
    assert samples[("reward_sandbox_retried_steps_total", ())] == 3
    assert samples[("reward_cache_lookups_total", (("outcome", "hit"),))] == 1
    assert samples[("reward_cache_lookups_total", (("outcome", "miss"),))] == 2

    metrics.request_finished("Score", 0.5)
    samples = scrape(port)
    assert samples[("reward_requests_in_flight", ())] == 0
    assert samples[("reward_request_seconds_count", (("method", "Score"),))] == 1


def test_a_batch_of_inline_verdicts_counts_each_candidate() -> None:
    metrics = ServerMetrics()
    metrics.observe_batch("equation", {"PASS": 3, "NO_VERDICT": 1}, total_s=0.002)
    value = metrics.registry.get_sample_value
    assert value("reward_candidates_total", {"language": "equation"}) == 4
    assert value("reward_verdicts_total", {"language": "equation", "verdict": "PASS"}) == 3
    assert value("reward_verdicts_total", {"language": "equation", "verdict": "NO_VERDICT"}) == 1
    assert value("reward_stage_seconds_count", {"language": "equation", "stage": "run"}) == 1


def test_two_instances_do_not_share_a_registry() -> None:
    a, b = ServerMetrics(), ServerMetrics()
    a.candidates_received("python", 2)
    assert a.registry.get_sample_value("reward_candidates_total", {"language": "python"}) == 2
    assert b.registry.get_sample_value("reward_candidates_total", {"language": "python"}) is None
