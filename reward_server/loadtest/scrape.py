"""Reading a server's Prometheus endpoint: pool occupancy over time and per-stage time, for the report."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
import urllib.error
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

from reward_server.metrics import STAGES

log = logging.getLogger(__name__)

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def metrics_url(address: str) -> str:
    """'host:port' or a full URL -> the /metrics URL."""
    if address.startswith(("http://", "https://")):
        return address if address.rstrip("/").endswith("/metrics") else address.rstrip("/") + "/metrics"
    return f"http://{address}/metrics"


def scrape(url: str, timeout_s: float = 5.0) -> Samples:
    with urllib.request.urlopen(url, timeout=timeout_s) as response:
        text = response.read().decode("utf-8")
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def total(samples: Samples, name: str, **labels: str) -> float:
    """Sum of a metric's samples whose labels include `labels`."""
    wanted = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and wanted <= set(ls))


@dataclasses.dataclass
class PoolPoint:
    t: float          # seconds since the run started
    slots: float
    busy: float
    queued: float


@dataclasses.dataclass
class ServerWatch:
    url: str
    points: list[PoolPoint] = dataclasses.field(default_factory=list)
    first: Samples | None = None
    last: Samples | None = None
    errors: int = 0

    def stage_means(self) -> dict[str, float | None]:
        """Mean seconds per grading stage over the run (difference of the histogram sums and counts)."""
        if self.first is None or self.last is None:
            return {}
        means: dict[str, float | None] = {}
        for stage in STAGES:
            count = (total(self.last, "reward_stage_seconds_count", stage=stage)
                     - total(self.first, "reward_stage_seconds_count", stage=stage))
            seconds = (total(self.last, "reward_stage_seconds_sum", stage=stage)
                       - total(self.first, "reward_stage_seconds_sum", stage=stage))
            means[stage] = seconds / count if count else None
        return means

    def summary(self) -> dict[str, object]:
        slots = max((p.slots for p in self.points), default=0.0)
        busy = [p.busy for p in self.points]
        mean_busy = sum(busy) / len(busy) if busy else None
        return {
            "url": self.url, "scrapes": len(self.points), "scrape_errors": self.errors, "slots": slots,
            "mean_busy": mean_busy,
            "utilisation": mean_busy / slots if mean_busy is not None and slots else None,
            "max_queued": max((p.queued for p in self.points), default=None),
            "stage_mean_s": self.stage_means(),
            "occupancy": [[round(p.t, 3), p.busy, p.queued] for p in self.points],   # t, busy, queued
        }


async def watch(server: ServerWatch, started: float, stop: asyncio.Event, interval_s: float = 0.5) -> None:
    """Scrape until `stop` is set (and once more after), recording pool occupancy."""
    while True:
        try:
            samples = await asyncio.to_thread(scrape, server.url)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            server.errors += 1
            log.warning("metrics scrape of %s failed: %s", server.url, exc)
        else:
            server.first = server.first or samples
            server.last = samples
            server.points.append(PoolPoint(time.monotonic() - started, total(samples, "reward_pool_slots"),
                                           total(samples, "reward_pool_busy"), total(samples, "reward_queue_depth")))
        if stop.is_set():
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), interval_s)
