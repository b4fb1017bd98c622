"""Client for the reward server: gRPC targets or a list of servers, round_robin, failover without losing candidates.

`AsyncRewardClient` does the work; `RewardClient` is a blocking facade that drives it on a private event
loop thread, so both behave identically. An address is one gRPC target (`dns:///reward.ns.svc:50051`,
`ipv4:10.0.0.5:50051,10.0.0.6:50051`, `host:port`) or a comma list of host:port, one channel each
(targets.py). Every channel balances with gRPC's `round_robin` over the replicas it is connected to; a
draining replica closes its connections (GOAWAY), so it gets no new calls. A batch is split into one call
per replica; a call that fails is sent again, to another replica of its target while one may be left,
else to another target, so no candidate is lost or answered twice. Only when every replica has failed
does the call raise `ServerUnavailable`. TLS and the bearer token come from `ClientSecurity`, read from
the environment unless given, so callers that pass only an address (the TRL rewards) get them too.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import json
import logging
import os
import re
import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from reward_server import targets
from reward_server.credentials import ClientSecurity
from reward_server.pb import reward_pb2, reward_pb2_grpc
from reward_server.wire import MESSAGE_SIZE_OPTIONS

log = logging.getLogger(__name__)

# Failures that say "this server cannot answer now", not "this request is wrong".
RETRYABLE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED, grpc.StatusCode.UNKNOWN,
                       grpc.StatusCode.INTERNAL, grpc.StatusCode.RESOURCE_EXHAUSTED})
HEALTH_TIMEOUT_S = 2.0
WIDTH_TTL_S = 30.0  # how long a target's replica count is trusted (the autoscaler changes it)
SERVICE_CONFIG = json.dumps({"loadBalancingConfig": [{"round_robin": {}}]})
SERVER_ENV = "REWARD_SERVER"   # the address every training integration falls back to


def server_address(server: str | Sequence[str] | None) -> str | Sequence[str]:
    """The explicit address(es), else $REWARD_SERVER."""
    address = server or os.environ.get(SERVER_ENV)
    if not address:
        raise ValueError(f"no reward server address: pass server=HOST:PORT or set ${SERVER_ENV}")
    return address


class RewardServerError(Exception):
    """A call the servers could not answer; the message starts with the gRPC status name."""

    def __init__(self, code: grpc.StatusCode, detail: str) -> None:
        super().__init__(f"{code.name}: {detail}")
        self.code = code
        self.detail = detail


class ServerUnavailable(RewardServerError, ConnectionError):
    """No reward server at the given addresses could take the request."""

    def __init__(self, detail: str) -> None:
        super().__init__(grpc.StatusCode.UNAVAILABLE, detail)


class RequestRejected(RewardServerError, ValueError):
    """The server refused the request as malformed; the message names the field."""

    def __init__(self, detail: str) -> None:
        super().__init__(grpc.StatusCode.INVALID_ARGUMENT, detail)


class CallFailed(RewardServerError):
    """The server answered with a status no other replica would change (UNAUTHENTICATED, DEADLINE_EXCEEDED...)."""


def _setup_failure(details: str, security: ClientSecurity) -> str | None:
    """Why a connection cannot work as configured (TLS on one side only, a certificate refused), else None.

    gRPC reports these as UNAVAILABLE, like a server that is still starting; waiting would not help them.
    """
    if "handshake failed" in details.lower():
        reason = re.search(r"OPENSSL_internal:(\w+)", details)
        return (f"TLS handshake failed ({reason.group(1) if reason else details}): is the server serving TLS, "
                "with a certificate signed by the CA given (--tls-ca / $REWARD_SERVER_TLS_CA)?")
    if "Socket closed" in details:
        if security.tls:
            return ("the server closed the connection during the TLS handshake: it requires a client certificate "
                    "(--tls-cert/--tls-key) or refused the one given")
        return ("the server closed the connection at once: it serves TLS, and this client connects in plaintext "
                "(give --tls-ca or $REWARD_SERVER_TLS_CA)")
    return None


class _Endpoint:
    """One channel to one target, balanced over the target's replicas by gRPC's round_robin."""

    def __init__(self, target: str, security: ClientSecurity) -> None:
        self.target = target
        options = [*MESSAGE_SIZE_OPTIONS, ("grpc.service_config", SERVICE_CONFIG)]
        credentials = security.channel_credentials()
        self.channel = (grpc.aio.secure_channel(target, credentials, options) if credentials is not None
                        else grpc.aio.insecure_channel(target, options))
        self.stub = reward_pb2_grpc.RewardServiceStub(self.channel)
        self.health = health_pb2_grpc.HealthStub(self.channel)
        self.down_until = 0.0
        self.width = 1
        self._width_checked = -WIDTH_TTL_S

    async def refresh_width(self) -> None:
        if time.monotonic() - self._width_checked >= WIDTH_TTL_S:
            self.width = await targets.width(self.target)
            self._width_checked = time.monotonic()

    async def check(self) -> str | None:
        """None when a replica answers SERVING, else why not."""
        try:
            reply = await self.health.Check(health_pb2.HealthCheckRequest(), timeout=HEALTH_TIMEOUT_S)
        except grpc.aio.AioRpcError as error:
            return error.details() or error.code().name
        if reply.status == health_pb2.HealthCheckResponse.SERVING:
            return None
        return f"health {health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)}"


def _renumber(message: str, indexes: Sequence[int]) -> str:
    """Map `candidates[k]` in a server's error (k within a sub-batch) back to the caller's numbering."""
    return re.sub(r"candidates\[(\d+)\]", lambda m: f"candidates[{indexes[int(m.group(1))]}]", message)


class AsyncRewardClient:
    def __init__(self, addresses: str | Sequence[str], *, timeout_s: float | None = None,
                 retry_down_s: float = 5.0, security: ClientSecurity | None = None) -> None:
        self.addresses = targets.parse_targets(addresses)
        self.timeout_s = timeout_s
        self.retry_down_s = retry_down_s
        self.security = security if security is not None else ClientSecurity.from_env()
        self._metadata = self.security.metadata()
        self._endpoints = [_Endpoint(address, self.security) for address in self.addresses]
        self._turn = itertools.count()

    @classmethod
    async def connect(cls, addresses: str | Sequence[str], *, timeout_s: float | None = None,
                      wait_ready_s: float = 10.0, security: ClientSecurity | None = None) -> AsyncRewardClient:
        """A client whose servers answered health checks; raises ServerUnavailable if none is serving."""
        client = cls(addresses, timeout_s=timeout_s, security=security)
        try:
            await client.wait_ready(wait_ready_s)
        except ServerUnavailable:
            await client.close()
            raise
        return client

    async def wait_ready(self, timeout_s: float) -> None:
        """Until some server is SERVING; a connection that cannot work as configured fails at once."""
        give_up = time.monotonic() + timeout_s
        while True:
            reasons = await asyncio.gather(*(endpoint.check() for endpoint in self._endpoints))
            for endpoint, reason in zip(self._endpoints, reasons, strict=True):
                endpoint.down_until = 0.0 if reason is None else time.monotonic() + self.retry_down_s
            if any(reason is None for reason in reasons):
                return
            setup = [_setup_failure(reason, self.security) for reason in reasons]
            if all(setup):
                raise ServerUnavailable("; ".join(f"{e.target}: {why}"
                                                  for e, why in zip(self._endpoints, setup, strict=True)))
            if time.monotonic() >= give_up:
                last = "; ".join(f"{e.target}: {why}" for e, why in zip(self._endpoints, reasons, strict=True))
                raise ServerUnavailable(f"no reward server is serving at {', '.join(self.addresses)} "
                                        f"(waited {timeout_s:g}s for gRPC health SERVING; {last})")
            await asyncio.sleep(0.2)

    async def close(self) -> None:
        await asyncio.gather(*(endpoint.channel.close() for endpoint in self._endpoints))

    async def __aenter__(self) -> AsyncRewardClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _live(self, exclude: set[str] = frozenset()) -> list[_Endpoint]:
        """Targets to try, rotated per call; down ones only when nothing else is left."""
        now = time.monotonic()
        candidates = [e for e in self._endpoints if e.target not in exclude]
        up = [e for e in candidates if e.down_until <= now] or candidates
        if not up:
            return []
        start = next(self._turn) % len(up)
        return up[start:] + up[:start]

    async def _refresh_widths(self) -> None:
        await asyncio.gather(*(endpoint.refresh_width() for endpoint in self._endpoints))

    def _after_failure(self, endpoint: _Endpoint, error: grpc.aio.AioRpcError,
                       failures: collections.Counter[str]) -> _Endpoint | None:
        """Where a failed call goes next: its target again while a replica may be left (round_robin skips the
        one that failed), else another target; None when every replica has failed."""
        failures[endpoint.target] += 1
        if failures[endpoint.target] < endpoint.width:
            log.warning("a replica of %s failed (%s: %s); retrying on another", endpoint.target,
                        error.code().name, error.details())
            return endpoint
        endpoint.down_until = time.monotonic() + self.retry_down_s
        log.warning("reward server %s failed (%s: %s); retrying its candidates elsewhere",
                    endpoint.target, error.code().name, error.details())
        exhausted = {e.target for e in self._endpoints if failures[e.target] >= e.width}
        return next(iter(self._live(exclude=exhausted)), None)

    @staticmethod
    def _unavailable(failures: collections.Counter[str], error: grpc.aio.AioRpcError | None) -> ServerUnavailable:
        last = f"; last error {error.code().name}: {error.details()}" if error is not None else ""
        return ServerUnavailable(f"every reward server failed: {', '.join(sorted(failures))}{last}")

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
        await self._refresh_widths()
        endpoints = self._live()
        lanes = [endpoint for endpoint in endpoints for _ in range(endpoint.width)]  # one call per replica
        shares = [list(range(start, len(candidates), len(lanes))) for start in range(len(lanes))]
        await asyncio.gather(*(
            self._score_share(candidates, share, endpoint, priority, caller, timeout, results)
            for endpoint, share in zip(lanes, shares, strict=True) if share))
        return results  # type: ignore[return-value]

    async def _score_share(self, candidates: Sequence[reward_pb2.Candidate], share: list[int],
                           first: _Endpoint, priority: int, caller: str, timeout: float | None,
                           results: list[reward_pb2.ScoreResult | None]) -> None:
        failures: collections.Counter[str] = collections.Counter()
        endpoint: _Endpoint | None = first
        error = None
        while endpoint is not None:
            try:
                reply = await endpoint.stub.Score(self._request(candidates, share, priority, caller),
                                                  timeout=timeout, metadata=self._metadata)
            except grpc.aio.AioRpcError as failed:
                self._raise_unless_retryable(failed, share)
                error = failed
                endpoint = self._after_failure(endpoint, failed, failures)
                continue
            for result in reply.results:
                result.index = share[result.index]
                results[result.index] = result
            return
        raise self._unavailable(failures, error)

    async def score_stream(self, candidates: Sequence[reward_pb2.Candidate], *,
                           priority: int = reward_pb2.TRAINING, caller: str = "",
                           timeout_s: float | None = None) -> AsyncIterator[reward_pb2.ScoreResult]:
        """Results as they finish, from one server at a time; a failed server's missing ones are resent."""
        timeout = timeout_s if timeout_s is not None else self.timeout_s
        missing = list(range(len(candidates)))
        failures: collections.Counter[str] = collections.Counter()
        await self._refresh_widths()
        endpoint = next(iter(self._live()), None)
        error = None
        while missing:
            if endpoint is None:
                raise self._unavailable(failures, error)
            share, done = list(missing), set()
            try:
                async for result in endpoint.stub.ScoreStream(
                        self._request(candidates, share, priority, caller), timeout=timeout, metadata=self._metadata):
                    result.index = share[result.index]
                    done.add(result.index)
                    yield result
            except grpc.aio.AioRpcError as failed:
                self._raise_unless_retryable(failed, share)
                error = failed
                endpoint = self._after_failure(endpoint, failed, failures)
            missing = [i for i in share if i not in done]

    @staticmethod
    def _raise_unless_retryable(error: grpc.aio.AioRpcError, share: Sequence[int]) -> None:
        if error.code() == grpc.StatusCode.INVALID_ARGUMENT:
            raise RequestRejected(_renumber(error.details() or "", share)) from None
        if error.code() not in RETRYABLE:
            raise CallFailed(error.code(), error.details() or "") from None

    async def languages(self) -> reward_pb2.ListLanguagesResponse:
        failures: collections.Counter[str] = collections.Counter()
        await self._refresh_widths()
        endpoint = next(iter(self._live()), None)
        error = None
        while endpoint is not None:
            try:
                return await endpoint.stub.ListLanguages(reward_pb2.ListLanguagesRequest(), timeout=30,
                                                         metadata=self._metadata)
            except grpc.aio.AioRpcError as failed:
                self._raise_unless_retryable(failed, ())
                error = failed
                endpoint = self._after_failure(endpoint, failed, failures)
        raise self._unavailable(failures, error)


class RewardClient:
    """Blocking client: the same behaviour as AsyncRewardClient, driven on a private event-loop thread."""

    def __init__(self, addresses: str | Sequence[str], *, timeout_s: float | None = None,
                 wait_ready_s: float = 10.0, security: ClientSecurity | None = None) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="reward-client", daemon=True)
        self._thread.start()
        try:
            self._client = self._call(AsyncRewardClient.connect(addresses, timeout_s=timeout_s,
                                                                wait_ready_s=wait_ready_s, security=security))
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
