"""Prometheus metrics of the reward server, behind a small recording API.

The service and pool call the recording methods; nothing else in the server touches prometheus_client.
Each ServerMetrics owns its registry, so several servers (or tests) in one process never collide.
Names are part of the operator contract (dashboards, the load tester): change them only deliberately.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from typing import Protocol
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server
from prometheus_client.core import CounterMetricFamily, Metric
from prometheus_client.registry import Collector

from reward_server.verdicts import Verdict

log = logging.getLogger(__name__)

# Sandbox work spans milliseconds (cached, equational) to the 15 s MultiPL-E limit and beyond.
LATENCY_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 60.0)
STAGES = ("queue", "compile", "run")


class PoolStats(Protocol):
    """What sandboxes.pool.PoolStats provides (kept structural: metrics need no sandbox import)."""

    slots: int
    busy: int
    queued: int
    sandbox_deaths: Mapping[str, int]
    retried_steps: int


class _SandboxDeaths(Collector):
    """The backend's own counts, read at scrape time: a sick host (zygotes, launchers or containers dying under runs)
    shows before its INFRA verdicts do."""

    def __init__(self, stats: Callable[[], PoolStats]) -> None:
        self.stats = stats

    def collect(self) -> list[Metric]:
        stats = self.stats()
        deaths = CounterMetricFamily("reward_sandbox_deaths", "Steps whose sandbox died under them (or that died of "
                                     "a SIGKILL none of their limits explains)", labels=["cause"])
        for cause, count in stats.sandbox_deaths.items():
            deaths.add_metric([cause], count)
        retried = CounterMetricFamily("reward_sandbox_retried_steps", "Steps run again in a fresh sandbox after its "
                                      "death", value=stats.retried_steps)
        return [deaths, retried]


class ServerMetrics:
    """Counters, gauges and histograms for one server process."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter("reward_requests", "RPCs received", ["method"], registry=r)
        self.requests_in_flight = Gauge("reward_requests_in_flight", "RPCs being served", registry=r)
        self.request_seconds = Histogram("reward_request_seconds", "RPC latency, whole batch", ["method"],
                                         buckets=LATENCY_BUCKETS, registry=r)
        self.candidates = Counter("reward_candidates", "Candidates received", ["language"], registry=r)
        self.verdicts = Counter("reward_verdicts", "Verdicts given", ["language", "verdict"], registry=r)
        self.infra_errors = Counter("reward_infra_errors", "Infra verdicts (reward withheld)",
                                    ["language", "verdict"], registry=r)
        self.stage_seconds = Histogram("reward_stage_seconds", "Time per grading stage",
                                       ["language", "stage"], buckets=LATENCY_BUCKETS, registry=r)
        self.candidate_seconds = Histogram("reward_candidate_seconds", "Time per candidate, queue included",
                                           ["language"], buckets=LATENCY_BUCKETS, registry=r)
        self.queue_depth = Gauge("reward_queue_depth", "Candidates waiting for a sandbox slot", registry=r)
        self.pool_size = Gauge("reward_pool_slots", "Sandbox slots in the pool", registry=r)
        self.pool_busy = Gauge("reward_pool_busy", "Sandbox slots running a candidate", registry=r)
        self.pool_idle = Gauge("reward_pool_idle", "Sandbox slots free", registry=r)
        self.cache = Counter("reward_cache_lookups", "Result cache lookups", ["outcome"], registry=r)
        self.internal_errors = Counter("reward_internal_errors", "Candidates whose grading raised an unexpected "
                                       "exception (a bug: each is logged with its candidate)", ["kind", "exception"],
                                       registry=r)
        self.sandbox_limits = Gauge("reward_sandbox_limits", "How the sandboxes' limits are enforced (1 on the mode "
                                    "in use: cgroup-v2, cgroup-v1, rlimit, docker)", ["mode"], registry=r)
        self._server: WSGIServer | None = None
        self._thread: threading.Thread | None = None

    def request_started(self, method: str) -> None:
        self.requests.labels(method).inc()
        self.requests_in_flight.inc()

    def request_finished(self, method: str, seconds: float) -> None:
        self.requests_in_flight.dec()
        self.request_seconds.labels(method).observe(seconds)

    def candidates_received(self, language: str, count: int = 1) -> None:
        self.candidates.labels(language).inc(count)

    def observe_result(self, language: str, verdict: str, *, total_s: float, queue_s: float | None = None,
                       compile_s: float | None = None, run_s: float | None = None) -> None:
        """One finished candidate; a stage that did not happen (no compile, cache hit) is passed as None."""
        self.verdicts.labels(language, verdict).inc()
        if Verdict[verdict].is_infra:
            self.infra_errors.labels(language, verdict).inc()
        self.candidate_seconds.labels(language).observe(total_s)
        for stage, seconds in zip(STAGES, (queue_s, compile_s, run_s), strict=True):
            if seconds is not None:
                self.stage_seconds.labels(language, stage).observe(seconds)

    def observe_batch(self, language: str, verdicts: Mapping[str, int], total_s: float) -> None:
        """Many candidates graded inline at once (equations): one update per verdict, not per candidate."""
        self.candidates.labels(language).inc(sum(verdicts.values()))
        for verdict, count in verdicts.items():
            self.verdicts.labels(language, verdict).inc(count)
        self.stage_seconds.labels(language, "run").observe(total_s)

    def watch_pool(self, stats: Callable[[], PoolStats]) -> None:
        """Read the pool's occupancy at scrape time, so the scheduler's hot path records nothing."""
        self.pool_size.set_function(lambda: stats().slots)
        self.pool_busy.set_function(lambda: stats().busy)
        self.pool_idle.set_function(lambda: stats().slots - stats().busy)
        self.queue_depth.set_function(lambda: stats().queued)
        self.registry.register(_SandboxDeaths(stats))

    def limits_mode(self, mode: str) -> None:
        self.sandbox_limits.labels(mode).set(1)

    def internal_error(self, kind: str, exc: BaseException) -> None:
        self.internal_errors.labels(kind, type(exc).__name__).inc()

    def cache_lookup(self, hit: bool) -> None:
        self.cache.labels("hit" if hit else "miss").inc()

    def serve(self, port: int, host: str = "0.0.0.0") -> int:
        """Serve /metrics over HTTP in a daemon thread; returns the bound port (port 0 picks a free one)."""
        self._server, self._thread = start_http_server(port, addr=host, registry=self.registry)
        bound = self._server.server_address[1]
        log.info("metrics on http://%s:%d/metrics", host, bound)
        return bound

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
