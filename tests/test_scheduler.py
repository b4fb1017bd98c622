"""The fair scheduler: priorities, round-robin between callers, deadlines and bounded queues, no leaked slots."""

from __future__ import annotations

import asyncio

import pytest

from sandboxes.scheduler import DeadlineExceeded, FairScheduler, Overloaded


async def admit_order(scheduler: FairScheduler, requests: list[tuple[int, str]]) -> list[int]:
    """Queue every request behind one held slot, release it, and record the order of admission."""
    held = await scheduler.acquire(1, "holder", None)
    order: list[int] = []

    async def worker(index: int, priority: int, caller: str) -> None:
        slot = await scheduler.acquire(priority, caller, None)
        order.append(index)
        await asyncio.sleep(0)
        scheduler.release(slot)

    tasks = [asyncio.create_task(worker(i, p, c)) for i, (p, c) in enumerate(requests)]
    await asyncio.sleep(0.01)
    scheduler.release(held)
    await asyncio.gather(*tasks)
    return order


@pytest.mark.asyncio
async def test_priority_before_arrival() -> None:
    order = await admit_order(FairScheduler(1, 100), [(3, "bg"), (2, "eval"), (1, "train"), (2, "eval")])
    assert order == [2, 1, 3, 0]


@pytest.mark.asyncio
async def test_round_robin_between_callers() -> None:
    requests = [(1, "big")] * 4 + [(1, "small")] * 2
    order = await admit_order(FairScheduler(1, 100), requests)
    assert order == [0, 4, 1, 5, 2, 3]


@pytest.mark.asyncio
async def test_deadline_while_queued_and_slot_not_leaked() -> None:
    scheduler = FairScheduler(1, 100)
    held = await scheduler.acquire(1, "a", None)
    loop = asyncio.get_running_loop()
    with pytest.raises(DeadlineExceeded):
        await scheduler.acquire(1, "b", loop.time() + 0.05)
    assert scheduler.queued == 0
    scheduler.release(held)
    assert scheduler.busy == 0
    with pytest.raises(DeadlineExceeded):
        await scheduler.acquire(1, "b", loop.time() - 1)


@pytest.mark.asyncio
async def test_overloaded_when_queue_full() -> None:
    scheduler = FairScheduler(1, 1)
    held = await scheduler.acquire(1, "a", None)
    waiting = asyncio.create_task(scheduler.acquire(1, "b", None))
    await asyncio.sleep(0)
    with pytest.raises(Overloaded):
        await scheduler.acquire(1, "c", None)
    scheduler.release(held)
    scheduler.release(await waiting)
    assert scheduler.busy == 0 and scheduler.queued == 0


@pytest.mark.asyncio
async def test_cancelled_waiters_leak_nothing() -> None:
    scheduler = FairScheduler(2, 100)
    slots = [await scheduler.acquire(1, "a", None) for _ in range(2)]
    waiters = [asyncio.create_task(scheduler.acquire(1, f"c{i}", None)) for i in range(5)]
    await asyncio.sleep(0)
    for waiter in waiters[:3]:
        waiter.cancel()
    for slot in slots:
        scheduler.release(slot)
    granted = [await w for w in waiters[3:]]
    assert sorted(granted) == [0, 1]
    for slot in granted:
        scheduler.release(slot)
    assert scheduler.busy == 0 and scheduler.queued == 0
