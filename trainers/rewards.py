"""Reward functions for TRL's `GRPOTrainer`, scored by the reward server.

TRL (1.16) calls a reward function with keyword arguments only: `prompts`, `completions`, `completion_ids`,
every other dataset column as a list (one value per completion), `trainer_state`, `log_metric` and
`log_extra`; `async def` functions run concurrently on TRL's event-loop thread. A `None` reward becomes NaN,
which TRL leaves out of the group baseline; a completion no function scored gets advantage 0.

Each function scores the rows of its own `task` ("code" or "equation") and returns None for the others, so
both can be passed together over a mixed dataset. The whole batch goes to the server in one call. Infra
verdicts (the server withheld the reward) are None, never 0. Per-verdict counts and the infra rate go to
`log_metric`; each completion's verdict goes to `log_extra` (the completions table).
"""

from __future__ import annotations

import asyncio
import collections
import logging
import os
from collections.abc import Callable, Sequence
from typing import Any

from reward_server.client import AsyncRewardClient, RewardClient
from reward_server.pb import reward_pb2
from reward_server.verdicts import Verdict
from trainers.candidates import candidate, completion_text

log = logging.getLogger(__name__)

SERVER_ENV = "REWARD_SERVER"
KINDS = ("code", "equation")
ROW_COLUMNS = ("task", "language", "code_prompt", "stop_tokens", "tests", "io_tests", "comparator",
               "extraction", "expected")


def server_address(server: str | Sequence[str] | None) -> str | Sequence[str]:
    """The explicit address(es), else $REWARD_SERVER."""
    address = server or os.environ.get(SERVER_ENV)
    if not address:
        raise ValueError(f"no reward server address: pass server=HOST:PORT or set ${SERVER_ENV}")
    return address


class _ServerRewardBase:
    """What the blocking and async flavours share: one request per batch, verdict -> reward, logging."""

    def __init__(self, kind: str, server: str | Sequence[str] | None = None, *, partial_credit: bool = False,
                 caller: str = "grpo", timeout_s: float | None = None) -> None:
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        if partial_credit and kind != "code":
            raise ValueError("partial credit is the fraction of a program's tests passed: code rewards only")
        self.kind = kind
        self.partial_credit = partial_credit
        self.caller = caller
        self.timeout_s = timeout_s
        self.__name__ = f"{kind}_reward"  # TRL's name for the function in its logs
        self.address = server_address(server)

    def _candidates(self, completions: list, columns: dict[str, Any]) -> tuple[list[int], list[Any]]:
        """Positions of this kind's rows and their candidates."""
        missing = [name for name in ROW_COLUMNS if name not in columns]
        if missing:
            raise KeyError(f"{self.__name__}: dataset lacks columns {missing} (build it with trainers.benchmarks)")
        indexes = [i for i, task in enumerate(columns["task"]) if task == self.kind]
        ids = columns.get("problem_id") or [str(i) for i in range(len(completions))]
        batch = [candidate({name: columns[name][i] for name in ROW_COLUMNS}, completion_text(completions[i]),
                           f"{ids[i]}#{i}", run_all_tests=self.partial_credit) for i in indexes]
        return indexes, batch

    def _rewards(self, size: int, indexes: list[int], results: list[reward_pb2.ScoreResult],
                 log_metric: Callable[[str, float], None] | None,
                 log_extra: Callable[[str, list], None] | None) -> list[float | None]:
        rewards: list[float | None] = [None] * size
        verdicts = [""] * size
        counts: collections.Counter[str] = collections.Counter()
        for i, result in zip(indexes, results, strict=True):
            verdict = Verdict[reward_pb2.Verdict.Name(result.verdict)]
            counts[verdict.name] += 1
            verdicts[i] = verdict.name
            rewards[i] = self._reward(verdict, result)
        if log_extra is not None:
            log_extra(f"{self.kind}_verdict", verdicts)
        if log_metric is not None and indexes:
            for verdict in Verdict:
                log_metric(f"{self.kind}/verdicts/{verdict.name}", float(counts[verdict.name]))
            log_metric(f"{self.kind}/infra_rate", sum(counts[v.name] for v in Verdict if v.is_infra) / len(indexes))
        return rewards

    def _reward(self, verdict: Verdict, result: reward_pb2.ScoreResult) -> float | None:
        if verdict.is_infra:
            if result.HasField("reward"):
                raise ValueError(f"server gave {verdict.name} a reward for {result.id}: infra must withhold it")
            return None
        if self.partial_credit and result.tests:
            return sum(t.verdict == reward_pb2.PASS for t in result.tests) / len(result.tests)
        return result.reward


class ServerReward(_ServerRewardBase):
    """Blocking reward function; construction raises ServerUnavailable unless a server is serving."""

    def __init__(self, kind: str, server: str | Sequence[str] | None = None, *, wait_ready_s: float = 10.0,
                 **options: Any) -> None:
        super().__init__(kind, server, **options)
        self._client = RewardClient(self.address, timeout_s=self.timeout_s, wait_ready_s=wait_ready_s)

    def __call__(self, prompts: list, completions: list, *, log_metric: Callable[[str, float], None] | None = None,
                 log_extra: Callable[[str, list], None] | None = None, **columns: Any) -> list[float | None]:
        indexes, batch = self._candidates(completions, columns)
        results = self._client.score(batch, priority=reward_pb2.TRAINING, caller=self.caller) if batch else []
        return self._rewards(len(completions), indexes, results, log_metric, log_extra)

    def close(self) -> None:
        self._client.close()


class AsyncServerReward(_ServerRewardBase):
    """`async def` flavour: TRL awaits it on its event-loop thread, concurrently with other async rewards.

    Construction checks the server like ServerReward; the asyncio client is opened on the loop that awaits
    the function (a gRPC aio channel belongs to one loop).
    """

    def __init__(self, kind: str, server: str | Sequence[str] | None = None, *, wait_ready_s: float = 10.0,
                 **options: Any) -> None:
        super().__init__(kind, server, **options)
        RewardClient(self.address, wait_ready_s=wait_ready_s).close()
        self._client: AsyncRewardClient | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def __call__(self, prompts: list, completions: list, *,
                       log_metric: Callable[[str, float], None] | None = None,
                       log_extra: Callable[[str, list], None] | None = None, **columns: Any) -> list[float | None]:
        indexes, batch = self._candidates(completions, columns)
        results = []
        if batch:
            client = await self._client_on_running_loop()
            results = await client.score(batch, priority=reward_pb2.TRAINING, caller=self.caller)
        return self._rewards(len(completions), indexes, results, log_metric, log_extra)

    async def _client_on_running_loop(self) -> AsyncRewardClient:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client = await AsyncRewardClient.connect(self.address, timeout_s=self.timeout_s)
            self._loop = loop
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None


def code_reward(server: str | Sequence[str] | None = None, **options: Any) -> ServerReward:
    return ServerReward("code", server, **options)


def equation_reward(server: str | Sequence[str] | None = None, **options: Any) -> ServerReward:
    return ServerReward("equation", server, **options)


def async_code_reward(server: str | Sequence[str] | None = None, **options: Any) -> AsyncServerReward:
    return AsyncServerReward("code", server, **options)


def async_equation_reward(server: str | Sequence[str] | None = None, **options: Any) -> AsyncServerReward:
    return AsyncServerReward("equation", server, **options)
