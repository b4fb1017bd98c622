"""Client for the reward server: one or several addresses, round-robin, failover without losing candidates.

`AsyncRewardClient` does the work; `RewardClient` is a blocking facade that drives it on a private event
loop thread, so both behave identically. A batch is split across the servers that are up; a server that
fails mid-call is marked down for a while and its unfinished candidates are sent to another. Only when
every server has failed does the call raise `ServerUnavailable`: a candidate is never silently dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import re
import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from reward_server.pb import reward_pb2, reward_pb2_grpc

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 256 << 20
# Failures that say "this server cannot answer now", not "this request is wrong".
RETRYABLE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED, grpc.StatusCode.UNKNOWN,
                       grpc.StatusCode.INTERNAL, grpc.StatusCode.RESOURCE_EXHAUSTED})
HEALTH_TIMEOUT_S = 2.0


class ServerUnavailable(ConnectionError):
    """No reward server at the given addresses could take the request."""


class RequestRejected(ValueError):
    """The server refused the request as malformed; the message names the field."""


def parse_addresses(addresses: str | Sequence[str]) -> list[str]:
    items = addresses.split(",") if isinstance(addresses, str) else list(addresses)
    parsed = [item.strip() for item in items if item.strip()]
    if not parsed:
        raise ValueError("no reward server address given")
    return parsed


class _Endpoint:
    def __init__(self, address: str) -> None:
        self.address = address
        self.channel = grpc.aio.insecure_channel(address, options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
        ])
        self.stub = reward_pb2_grpc.RewardServiceStub(self.channel)
        self.health = health_pb2_grpc.HealthStub(self.channel)
        self.down_until = 0.0

    async def serving(self) -> bool:
        try:
            reply = await self.health.Check(health_pb2.HealthCheckRequest(), timeout=HEALTH_TIMEOUT_S)
        except grpc.aio.AioRpcError:
            return False
        return reply.status == health_pb2.HealthCheckResponse.SERVING


def _renumber(message: str, indexes: Sequence[int]) -> str:
    """Map `candidates[k]` in a server's error (k within a sub-batch) back to the caller's numbering."""
    return re.sub(r"candidates\[(\d+)\]", lambda m: f"candidates[{indexes[int(m.group(1))]}]", message)


class AsyncRewardClient:
    def __init__(self, addresses: str | Sequence[str], *, timeout_s: float | None = None,
                 retry_down_s: float = 5.0) -> None:
        self.addresses = parse_addresses(addresses)
        self.timeout_s = timeout_s
        self.retry_down_s = retry_down_s
        self._endpoints = [_Endpoint(address) for address in self.addresses]
        self._turn = itertools.count()

    @classmethod
    async def connect(cls, addresses: str | Sequence[str], *, timeout_s: float | None = None,
                      wait_ready_s: float = 10.0) -> AsyncRewardClient:
        """A client whose servers answered health checks; raises ServerUnavailable if none is serving."""
        client = cls(addresses, timeout_s=timeout_s)
        try:
            await client.wait_ready(wait_ready_s)
        except ServerUnavailable:
            await client.close()
            raise
        return client

    async def wait_ready(self, timeout_s: float) -> None:
        give_up = time.monotonic() + timeout_s
        while True:
            states = await asyncio.gather(*(endpoint.serving() for endpoint in self._endpoints))
            for endpoint, up in zip(self._endpoints, states, strict=True):
                endpoint.down_until = 0.0 if up else time.monotonic() + self.retry_down_s
            if any(states):
                return
            if time.monotonic() >= give_up:
                raise ServerUnavailable(f"no reward server is serving at {', '.join(self.addresses)} "
                                        f"(waited {timeout_s:g}s for gRPC health SERVING)")
            await asyncio.sleep(0.2)

    async def close(self) -> None:
        await asyncio.gather(*(endpoint.channel.close() for endpoint in self._endpoints))

    async def __aenter__(self) -> AsyncRewardClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _live(self, exclude: set[str] = frozenset()) -> list[_Endpoint]:
        """Servers to try, rotated per call; down ones only when nothing else is left."""
        now = time.monotonic()
        candidates = [e for e in self._endpoints if e.address not in exclude]
        up = [e for e in candidates if e.down_until <= now] or candidates
        if not up:
            return []
        start = next(self._turn) % len(up)
        return up[start:] + up[:start]

    def _mark_down(self, endpoint: _Endpoint, error: grpc.aio.AioRpcError) -> None:
        endpoint.down_until = time.monotonic() + self.retry_down_s
        log.warning("reward server %s failed (%s: %s); retrying its candidates elsewhere",
                    endpoint.address, error.code().name, error.details())

    def _request(self, candidates: Sequence[reward_pb2.Candidate], indexes: Sequence[int], priority: int,
                 caller: str) -> reward_pb2.ScoreRequest:
        return reward_pb2.ScoreRequest(candidates=[candidates[i] for i in indexes], priority=priority,
                                       caller=caller)

    async def score(self, candidates: Sequence[reward_pb2.Candidate], *, priority: int = reward_pb2.TRAINING,
                    caller: str = "", timeout_s: float | None = None) -> list[reward_pb2.ScoreResult]:
        """Every candidate's result, in order (result.index is the position in `candidates`)."""
        results: list[reward_pb2.ScoreResult | None] = [None] * len(candidates)
        if not candidates:
            return []
        timeout = timeout_s if timeout_s is not None else self.timeout_s
        endpoints = self._live()
        shares = [list(range(start, len(candidates), len(endpoints))) for start in range(len(endpoints))]
        await asyncio.gather(*(
            self._score_share(candidates, share, endpoint, priority, caller, timeout, results)
            for endpoint, share in zip(endpoints, shares, strict=True) if share))
        return results  # type: ignore[return-value]

    async def _score_share(self, candidates: Sequence[reward_pb2.Candidate], share: list[int],
                           first: _Endpoint, priority: int, caller: str, timeout: float | None,
                           results: list[reward_pb2.ScoreResult | None]) -> None:
        tried: set[str] = set()
        endpoint: _Endpoint | None = first
        while endpoint is not None:
            tried.add(endpoint.address)
            try:
                reply = await endpoint.stub.Score(self._request(candidates, share, priority, caller),
                                                  timeout=timeout)
            except grpc.aio.AioRpcError as error:
                self._raise_unless_retryable(error, share)
                self._mark_down(endpoint, error)
                endpoint = next(iter(self._live(exclude=tried)), None)
                continue
            for result in reply.results:
                result.index = share[result.index]
                results[result.index] = result
            return
        raise ServerUnavailable(f"every reward server failed: {', '.join(sorted(tried))}")

    async def score_stream(self, candidates: Sequence[reward_pb2.Candidate], *,
                           priority: int = reward_pb2.TRAINING, caller: str = "",
                           timeout_s: float | None = None) -> AsyncIterator[reward_pb2.ScoreResult]:
        """Results as they finish, from one server at a time; a failed server's missing ones are resent."""
        timeout = timeout_s if timeout_s is not None else self.timeout_s
        missing = list(range(len(candidates)))
        tried: set[str] = set()
        while missing:
            endpoint = next(iter(self._live(exclude=tried)), None)
            if endpoint is None:
                raise ServerUnavailable(f"every reward server failed: {', '.join(sorted(tried))}")
            tried.add(endpoint.address)
            share, done = list(missing), set()
            try:
                async for result in endpoint.stub.ScoreStream(
                        self._request(candidates, share, priority, caller), timeout=timeout):
                    result.index = share[result.index]
                    done.add(result.index)
                    yield result
            except grpc.aio.AioRpcError as error:
                self._raise_unless_retryable(error, share)
                self._mark_down(endpoint, error)
            missing = [i for i in share if i not in done]

    @staticmethod
    def _raise_unless_retryable(error: grpc.aio.AioRpcError, share: Sequence[int]) -> None:
        if error.code() == grpc.StatusCode.INVALID_ARGUMENT:
            raise RequestRejected(_renumber(error.details() or "", share)) from None
        if error.code() not in RETRYABLE:
            raise error

    async def languages(self) -> reward_pb2.ListLanguagesResponse:
        tried: set[str] = set()
        while (endpoint := next(iter(self._live(exclude=tried)), None)) is not None:
            tried.add(endpoint.address)
            try:
                return await endpoint.stub.ListLanguages(reward_pb2.ListLanguagesRequest(), timeout=30)
            except grpc.aio.AioRpcError as error:
                self._raise_unless_retryable(error, ())
                self._mark_down(endpoint, error)
        raise ServerUnavailable(f"every reward server failed: {', '.join(sorted(tried))}")


class RewardClient:
    """Blocking client: the same behaviour as AsyncRewardClient, driven on a private event-loop thread."""

    def __init__(self, addresses: str | Sequence[str], *, timeout_s: float | None = None,
                 wait_ready_s: float = 10.0) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="reward-client", daemon=True)
        self._thread.start()
        try:
            self._client = self._call(AsyncRewardClient.connect(addresses, timeout_s=timeout_s,
                                                                wait_ready_s=wait_ready_s))
        except BaseException:
            self._stop_loop()
            raise
        self.addresses = self._client.addresses

    def _call(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def score(self, candidates: Sequence[reward_pb2.Candidate], *, priority: int = reward_pb2.TRAINING,
              caller: str = "", timeout_s: float | None = None) -> list[reward_pb2.ScoreResult]:
        return self._call(self._client.score(candidates, priority=priority, caller=caller,
                                             timeout_s=timeout_s))

    def score_stream(self, candidates: Sequence[reward_pb2.Candidate], *, priority: int = reward_pb2.TRAINING,
                     caller: str = "", timeout_s: float | None = None) -> Iterator[reward_pb2.ScoreResult]:
        stream = self._client.score_stream(candidates, priority=priority, caller=caller, timeout_s=timeout_s)
        try:
            while True:
                try:
                    yield self._call(stream.__anext__())
                except StopAsyncIteration:
                    return
        finally:
            self._call(stream.aclose())

    def languages(self) -> reward_pb2.ListLanguagesResponse:
        return self._call(self._client.languages())

    def close(self) -> None:
        if self._loop.is_running():
            self._call(self._client.close())
            self._stop_loop()

    def _stop_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        with contextlib.suppress(RuntimeError):
            self._loop.close()

    def __enter__(self) -> RewardClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
