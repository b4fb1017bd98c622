"""Driving the servers: closed loop (N batches always in flight) or open loop (batches at a fixed rate).

Batches go out through the round-robin client's streaming call, so each candidate's latency is the time
from its batch being sent to its own result arriving. A run ends at the duration or once `count`
candidates were sent, whichever comes first; batches already sent are waited for (and counted).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time

from reward_server.client import AsyncRewardClient, RewardServerError
from reward_server.loadtest.workload import Workload
from reward_server.pb import reward_pb2

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class CandidateSample:
    language: str
    finished_s: float        # since the run started
    latency_s: float         # since its batch was sent
    verdict: str
    expected: str


@dataclasses.dataclass(frozen=True)
class BatchSample:
    started_s: float
    latency_s: float
    size: int
    returned: int            # results that came back (fewer only on error)
    error: str | None = None


@dataclasses.dataclass
class RunLog:
    candidates: list[CandidateSample] = dataclasses.field(default_factory=list)
    batches: list[BatchSample] = dataclasses.field(default_factory=list)
    wall_s: float = 0.0


@dataclasses.dataclass(frozen=True)
class Limits:
    duration_s: float
    count: int | None = None         # candidates to send at most
    concurrency: int = 4             # closed loop: batches in flight
    rate: float | None = None        # open loop: batches per second (overrides concurrency)


class Driver:
    def __init__(self, client: AsyncRewardClient, workload: Workload, limits: Limits) -> None:
        self.client = client
        self.workload = workload
        self.limits = limits
        self.log = RunLog()
        self._sent = 0
        self._started = 0.0

    def _next_batch(self):
        """The next batch, trimmed to the count; None once the duration or the count is reached."""
        if time.monotonic() - self._started >= self.limits.duration_s:
            return None
        left = None if self.limits.count is None else self.limits.count - self._sent
        if left is not None and left <= 0:
            return None
        batch = self.workload.batch()
        if left is not None:
            batch = batch[:left]
        self._sent += len(batch)
        return batch

    async def _send(self, batch) -> None:
        sent = time.monotonic()
        returned, error = 0, None
        try:
            async for result in self.client.score_stream([p.candidate for p in batch], priority=reward_pb2.BACKGROUND,
                                                         caller="loadtest"):
                now = time.monotonic()
                planned = batch[result.index]
                self.log.candidates.append(CandidateSample(planned.language, now - self._started, now - sent,
                                                           reward_pb2.Verdict.Name(result.verdict), planned.expected))
                returned += 1
        except RewardServerError as exc:  # ServerUnavailable, RequestRejected, CallFailed
            error = f"{type(exc).__name__}: {exc}"
            log.warning("batch of %d failed: %s", len(batch), error)
        self.log.batches.append(BatchSample(sent - self._started, time.monotonic() - sent, len(batch), returned,
                                            error))

    async def _closed_worker(self) -> None:
        while (batch := self._next_batch()) is not None:
            await self._send(batch)

    async def _open_loop(self) -> None:
        interval = 1.0 / self.limits.rate
        in_flight: set[asyncio.Task] = set()
        next_at = time.monotonic()
        while (batch := self._next_batch()) is not None:
            task = asyncio.create_task(self._send(batch))
            in_flight.add(task)
            task.add_done_callback(in_flight.discard)
            next_at += interval
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))
        await asyncio.gather(*in_flight)

    async def run(self, started: float) -> RunLog:
        """Run from `started` (a time.monotonic() shared with the metrics watchers) to the limits."""
        self._started = started
        if self.limits.rate:
            await self._open_loop()
        else:
            await asyncio.gather(*(self._closed_worker() for _ in range(self.limits.concurrency)))
        self.log.wall_s = time.monotonic() - self._started
        return self.log
