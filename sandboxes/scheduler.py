"""Admission to a bounded number of sandbox slots: priorities first, then fair round-robin between callers.

Training work (priority 1) always goes before eval (2) and background (3); within one priority, callers take
turns so one large batch cannot starve a small one; within a caller, first come first served. Waiting is
bounded by the caller's deadline and by a maximum queue length.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib


class Overloaded(Exception):
    """The queue is full: the candidate is refused rather than queued without bound."""


class DeadlineExceeded(Exception):
    """The caller's deadline passed before a slot became free."""


class FairScheduler:
    def __init__(self, slots: int, max_queue: int) -> None:
        if slots < 1:
            raise ValueError(f"slots must be >= 1, got {slots}")
        self.slots = slots
        self.max_queue = max_queue
        self._free = list(range(slots - 1, -1, -1))
        # priority -> caller -> waiters (futures resolved with a slot index), callers in round-robin order
        self._waiting: dict[int, collections.OrderedDict[str, collections.deque[asyncio.Future[int]]]] = {}
        self._queued = 0

    @property
    def queued(self) -> int:
        return self._queued

    @property
    def busy(self) -> int:
        return self.slots - len(self._free)

    async def acquire(self, priority: int, caller: str, deadline: float | None) -> int:
        """A free slot index; raises Overloaded or DeadlineExceeded (deadline is loop.time()-based)."""
        loop = asyncio.get_running_loop()
        if deadline is not None and deadline <= loop.time():
            raise DeadlineExceeded("deadline already passed")
        if self._free and not self._queued:
            return self._free.pop()
        if self._queued >= self.max_queue:
            raise Overloaded(f"queue full ({self._queued} waiting for {self.slots} slots)")
        waiter: asyncio.Future[int] = loop.create_future()
        callers = self._waiting.setdefault(priority, collections.OrderedDict())
        callers.setdefault(caller, collections.deque()).append(waiter)
        self._queued += 1
        try:
            async with asyncio.timeout_at(deadline):
                return await waiter
        except BaseException as exc:
            if waiter.done() and not waiter.cancelled():
                self.release(waiter.result())  # granted just as we gave up: pass the slot on
            else:
                waiter.cancel()
                self._forget(priority, caller, waiter)
            if isinstance(exc, TimeoutError):
                raise DeadlineExceeded("deadline passed while queued for a sandbox slot") from None
            raise

    def release(self, slot: int) -> None:
        """Give the slot to the next waiter in priority and round-robin order, or free it."""
        for priority in sorted(self._waiting):
            callers = self._waiting[priority]
            while callers:
                caller, waiters = next(iter(callers.items()))
                waiter = waiters.popleft()
                self._queued -= 1
                if waiters:
                    callers.move_to_end(caller)
                else:
                    del callers[caller]
                if not waiter.done():
                    waiter.set_result(slot)
                    return
            del self._waiting[priority]
        self._free.append(slot)

    def _forget(self, priority: int, caller: str, waiter: asyncio.Future[int]) -> None:
        callers = self._waiting.get(priority)
        if callers is None or caller not in callers:
            return
        with contextlib.suppress(ValueError):
            callers[caller].remove(waiter)
            self._queued -= 1
        if not callers[caller]:
            del callers[caller]
        if not callers:
            del self._waiting[priority]
