"""Reward functions for TRL's `GRPOTrainer`, scored by the reward server.

TRL (1.16) calls a reward function with keyword arguments only: `prompts`, `completions`, `completion_ids`,
every other dataset column as a list (one value per completion), `trainer_state`, `log_metric` and
`log_extra`; `async def` functions run concurrently on TRL's event-loop thread. A `None` reward becomes NaN,
which TRL leaves out of the group baseline; a completion no function scored gets advantage 0.

Each function scores the rows of its own `task` ("code" or "equation") and returns None for the others, so
both can be passed together over a mixed dataset. The whole batch goes to the server in one call. Infra
verdicts (the server withheld the reward) are None, never 0. Per-verdict counts and the infra rate go to
`log_metric`; each completion's verdict goes to `log_extra` (the completions table).

Construction checks that a server is serving (fail fast), but a function opens its connection on its first
call, in the process that calls it: it pickles, as TRL's `AsyncGRPOTrainer` needs (it sends reward functions
to a spawned rollout process, which calls blocking ones from worker threads and async ones on its loop).
"""

from __future__ import annotations

import abc
import asyncio
import collections
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from reward_server.client import AsyncRewardClient, RewardClient, server_address
from reward_server.pb import reward_pb2
from reward_server.verdicts import Verdict
from trainers.datasets import COLUMNS, from_row

log = logging.getLogger(__name__)

KINDS = ("code", "equation")


def completion_text(completion: str | list[Mapping[str, Any]]) -> str:
    """TRL hands conversational completions as a list of messages; the graded text is their content."""
    if isinstance(completion, str):
        return completion
    return "".join(message["content"] for message in completion if message.get("role") == "assistant")


class _ServerRewardBase(abc.ABC):
    """What the blocking and async flavours share: one request per batch, verdict -> reward, logging."""

    _CONNECTION: tuple[str, ...] = ()   # attributes that hold this process's connection: never pickled

    def __init__(self, kind: str, server: str | Sequence[str] | None = None, *, partial_credit: bool = False,
                 caller: str = "grpo", timeout_s: float | None = None, wait_ready_s: float = 10.0) -> None:
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        if partial_credit and kind != "code":
            raise ValueError("partial credit is the fraction of a program's tests passed: code rewards only")
        self.kind = kind
        self.partial_credit = partial_credit
        self.caller = caller
        self.timeout_s = timeout_s
        self.wait_ready_s = wait_ready_s
        self.__name__ = f"{kind}_reward"  # TRL's name for the function in its logs
        self.address = server_address(server)
        RewardClient(self.address, wait_ready_s=wait_ready_s).close()   # fail fast where the reward is built
        self._disconnect()

    @abc.abstractmethod
    def _disconnect(self) -> None:
        """Forget this process's connection: the state of a new or unpickled function."""

    def __getstate__(self) -> dict[str, Any]:
        return {name: value for name, value in self.__dict__.items() if name not in self._CONNECTION}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._disconnect()

    def _candidates(self, prompts: list, completions: list,
                    columns: dict[str, Any]) -> tuple[list[int], list[reward_pb2.Candidate]]:
        """Positions of this kind's rows and their candidates: each row back to its Problem, then its Candidate."""
        missing = [name for name in COLUMNS if name not in columns]
        if missing:
            raise KeyError(f"{self.__name__}: dataset lacks columns {missing} (build it with trainers.datasets)")
        indexes = [i for i, task in enumerate(columns["task"]) if task == self.kind]
        batch = [from_row({"prompt": prompts[i], **{name: columns[name][i] for name in COLUMNS}}).candidate(
            f"{columns['problem_id'][i]}#{i}", completion_text(completions[i]), run_all_tests=self.partial_credit)
            for i in indexes]
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

    _CONNECTION = ("_client", "_lock")

    def _disconnect(self) -> None:
        self._client: RewardClient | None = None
        self._lock = threading.Lock()   # TRL's async trainer calls blocking rewards from worker threads

    def _connected(self) -> RewardClient:
        with self._lock:
            if self._client is None:
                self._client = RewardClient(self.address, timeout_s=self.timeout_s, wait_ready_s=self.wait_ready_s)
            return self._client

    def __call__(self, prompts: list, completions: list, *, log_metric: Callable[[str, float], None] | None = None,
                 log_extra: Callable[[str, list], None] | None = None, **columns: Any) -> list[float | None]:
        indexes, batch = self._candidates(prompts, completions, columns)
        results = self._connected().score(batch, priority=reward_pb2.TRAINING, caller=self.caller) if batch else []
        return self._rewards(len(completions), indexes, results, log_metric, log_extra)

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None


class AsyncServerReward(_ServerRewardBase):
    """`async def` flavour: TRL awaits it on its event-loop thread, concurrently with other async rewards.

    The asyncio client is opened on the loop that awaits the function (a gRPC aio channel belongs to one loop).
    """

    _CONNECTION = ("_client", "_loop")

    def _disconnect(self) -> None:
        self._client: AsyncRewardClient | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def __call__(self, prompts: list, completions: list, *,
                       log_metric: Callable[[str, float], None] | None = None,
                       log_extra: Callable[[str, list], None] | None = None, **columns: Any) -> list[float | None]:
        indexes, batch = self._candidates(prompts, completions, columns)
        results = []
        if batch:
            client = await self._client_on_running_loop()
            results = await client.score(batch, priority=reward_pb2.TRAINING, caller=self.caller)
        return self._rewards(len(completions), indexes, results, log_metric, log_extra)

    async def _client_on_running_loop(self) -> AsyncRewardClient:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client = await AsyncRewardClient.connect(self.address, timeout_s=self.timeout_s,
                                                           wait_ready_s=self.wait_ready_s)
            self._loop = loop
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._disconnect()


def code_reward(server: str | Sequence[str] | None = None, **options: Any) -> ServerReward:
    return ServerReward("code", server, **options)


def equation_reward(server: str | Sequence[str] | None = None, **options: Any) -> ServerReward:
    return ServerReward("equation", server, **options)


def async_code_reward(server: str | Sequence[str] | None = None, **options: Any) -> AsyncServerReward:
    return AsyncServerReward("code", server, **options)


def async_equation_reward(server: str | Sequence[str] | None = None, **options: Any) -> AsyncServerReward:
    return AsyncServerReward("equation", server, **options)
