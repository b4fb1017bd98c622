"""Client-side micro-batching for frameworks that score one sample per call, many calls at once (verl's reward
loop, verifiers' rewards): the calls one event loop makes within a few milliseconds go to the server as one
Score request, so a step's samples cost a handful of round trips and the server's pool sees them together.

A batch is sent when it holds `max_batch` candidates or when its first call has waited `max_delay_s`,
whichever comes first. Each caller gets its own result. A caller cancelled while it waits (verl's
`rate_limited` manager times calls out) gives up only its own result: the batch is sent for the others (a
cancelled caller's candidate, if not sent yet, is left out). A call that fails (`ServerUnavailable`, a
rejected request...) fails every caller of its batch with the same error.

`score()` uses one batcher per process, running event loop and address, opened on first use: a gRPC aio
channel belongs to the loop that made it, and a forked child must not reuse its parent's.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
from collections.abc import Sequence

from reward_server.client import AsyncRewardClient, server_address
from reward_server.pb import reward_pb2

log = logging.getLogger(__name__)

MAX_BATCH = 512        # candidates per Score call; a step's samples on one worker rarely exceed it
MAX_DELAY_S = 0.005    # the longest the first call of a batch waits for company: small beside any grading
CALLER = "training"


@dataclasses.dataclass
class _Batch:
    timer: asyncio.TimerHandle
    candidates: list[reward_pb2.Candidate] = dataclasses.field(default_factory=list)
    waiters: list[asyncio.Future[reward_pb2.ScoreResult]] = dataclasses.field(default_factory=list)


class MicroBatcher:
    """Gathers concurrent `score` calls on one event loop into batched Score calls on `client`."""

    def __init__(self, client: AsyncRewardClient, *, max_batch: int = MAX_BATCH,
                 max_delay_s: float = MAX_DELAY_S) -> None:
        if max_batch < 1 or max_delay_s < 0:
            raise ValueError(f"max_batch must be >= 1 and max_delay_s >= 0, got {max_batch}, {max_delay_s}")
        self.client = client
        self.max_batch = max_batch
        self.max_delay_s = max_delay_s
        self._open: dict[str, _Batch] = {}     # per caller: a ScoreRequest names one
        self._sending: set[asyncio.Task[None]] = set()   # referenced until done (the loop keeps weak ones)

    async def score(self, candidate: reward_pb2.Candidate, *, caller: str = CALLER) -> reward_pb2.ScoreResult:
        """This candidate's result (its `index` 0, as in a request of its own)."""
        loop = asyncio.get_running_loop()
        batch = self._open.get(caller)
        if batch is None:
            batch = self._open[caller] = _Batch(loop.call_later(self.max_delay_s, self._send, caller))
        waiter: asyncio.Future[reward_pb2.ScoreResult] = loop.create_future()
        batch.candidates.append(candidate)
        batch.waiters.append(waiter)
        if len(batch.candidates) >= self.max_batch:
            self._send(caller)
        return await waiter

    def _send(self, caller: str) -> None:
        batch = self._open.pop(caller)
        batch.timer.cancel()
        task = asyncio.get_running_loop().create_task(self._score(batch, caller))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    async def _score(self, batch: _Batch, caller: str) -> None:
        live = [i for i, waiter in enumerate(batch.waiters) if not waiter.done()]
        if not live:
            return
        try:
            results = await self.client.score([batch.candidates[i] for i in live], caller=caller)
        except asyncio.CancelledError:
            for i in live:
                batch.waiters[i].cancel()
            raise
        except Exception as error:   # every caller of the batch gets the call's own error
            log.warning("a batched Score call of %d candidates failed: %s", len(live), error)
            for i in live:
                if not batch.waiters[i].done():
                    batch.waiters[i].set_exception(error)
            return
        for i, result in zip(live, results, strict=True):
            if not batch.waiters[i].done():
                result.index = 0
                batch.waiters[i].set_result(result)


# loop -> (pid, address) -> the batcher, being opened or open; a closed loop's are dropped
_batchers: dict[asyncio.AbstractEventLoop, dict[tuple[int, str], asyncio.Task[MicroBatcher]]] = {}


async def _connect(address: str | Sequence[str]) -> MicroBatcher:
    return MicroBatcher(await AsyncRewardClient.connect(address))


async def batcher(address: str | None = None) -> MicroBatcher:
    """This process's and loop's batcher for `address` (else $REWARD_SERVER); concurrent first calls share one
    connection attempt, and a failed attempt is forgotten, so the next call tries again."""
    resolved = server_address(address)
    key = (os.getpid(), resolved if isinstance(resolved, str) else ",".join(resolved))
    loop = asyncio.get_running_loop()
    for closed in [other for other in _batchers if other.is_closed()]:
        del _batchers[closed]
    opened = _batchers.setdefault(loop, {})
    opening = opened.get(key)
    if opening is None:
        opening = opened[key] = loop.create_task(_connect(resolved))

        def forget_failure(task: asyncio.Task[MicroBatcher]) -> None:
            if (task.cancelled() or task.exception() is not None) and opened.get(key) is task:
                del opened[key]

        opening.add_done_callback(forget_failure)
    return await asyncio.shield(opening)   # a caller cancelled now does not cancel the others' connection


async def score(candidate: reward_pb2.Candidate, *, address: str | None = None,
                caller: str = CALLER) -> reward_pb2.ScoreResult:
    """The candidate's result, batched with the other calls this loop makes meanwhile."""
    return await (await batcher(address)).score(candidate, caller=caller)

