"""Identical code tasks are graded once.

A GRPO group often holds the same completion several times, and a converging policy repeats itself across
steps. A task is keyed by its full serialized CodeTask (language, code, tests, limits), so only a byte-identical
task can share a result. Concurrent identical tasks share one grading; finished ones are kept in a bounded LRU.
Only verdicts that are a property of the code are kept: a TIMEOUT can depend on the machine's load, and an
infra verdict is never the code's.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import hashlib
from collections.abc import Awaitable, Callable

from reward_server.graders.code import CodeGrade
from reward_server.pb import reward_pb2
from reward_server.verdicts import Verdict

KEPT_VERDICTS = frozenset({Verdict.PASS, Verdict.WRONG_ANSWER, Verdict.COMPILE_ERROR, Verdict.RUNTIME_ERROR,
                           Verdict.MEMORY_LIMIT, Verdict.OUTPUT_LIMIT, Verdict.NO_CODE, Verdict.EXITED_EARLY})


def task_key(task: reward_pb2.CodeTask) -> bytes:
    return hashlib.blake2b(task.SerializeToString(deterministic=True), digest_size=16).digest()


@dataclasses.dataclass
class _Shared:
    task: asyncio.Future[CodeGrade]
    waiters: int = 0


class ResultCache:
    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._done: collections.OrderedDict[bytes, CodeGrade] = collections.OrderedDict()
        self._pending: dict[bytes, _Shared] = {}

    async def grade(self, key: bytes, grade: Callable[[], Awaitable[CodeGrade]]) -> tuple[CodeGrade, bool]:
        """(the grade, whether it came from the cache or an identical task already in flight).

        The shared grading runs under the first caller's deadline and priority; it is cancelled only when
        every caller waiting on it has gone.
        """
        if (done := self._done.get(key)) is not None:
            self._done.move_to_end(key)
            return done, True
        shared = self._pending.get(key)
        joined = shared is not None
        if shared is None:
            shared = self._pending[key] = _Shared(asyncio.ensure_future(self._grade_and_keep(key, grade)))
        shared.waiters += 1
        try:
            return await asyncio.shield(shared.task), joined
        finally:
            shared.waiters -= 1
            if shared.waiters == 0 and not shared.task.done():
                shared.task.cancel()

    async def _grade_and_keep(self, key: bytes, grade: Callable[[], Awaitable[CodeGrade]]) -> CodeGrade:
        try:
            result = await grade()
        finally:
            self._pending.pop(key, None)
        if self.capacity > 0 and result.verdict in KEPT_VERDICTS:
            self._done[key] = result
            if len(self._done) > self.capacity:
                self._done.popitem(last=False)
        return result
