"""Assembling and running the gRPC server: service, health, reflection, TLS and tokens, graceful drain on
SIGTERM/SIGINT."""

from __future__ import annotations

import asyncio
import dataclasses
import ipaddress
import logging
import signal
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from reward_server.auth import TokenAuth
from reward_server.credentials import ServerSecurity, read_tokens
from reward_server.graders.code import CodeGrader
from reward_server.metrics import ServerMetrics
from reward_server.pb import reward_pb2_grpc
from reward_server.result_cache import ResultCache
from reward_server.service import RewardService
from reward_server.wire import MESSAGE_SIZE_OPTIONS, SERVICE_NAME
from sandboxes.backend import Backend
from sandboxes.backends import BACKENDS, DEFAULT_BACKEND
from sandboxes.languages import LanguageTable
from sandboxes.pool import SandboxPool

log = logging.getLogger(__name__)

# Connections end after this long (calls in flight finish first): clients then resolve the service name
# again, so replicas the autoscaler adds get their share of the calls.
MAX_CONNECTION_AGE_S = 300


@dataclasses.dataclass
class ServerConfig:
    """Every serve setting and its one default (`reward-server serve` shows these)."""

    host: str = "127.0.0.1"
    port: int = 50051
    backend: str = DEFAULT_BACKEND
    backend_options: Mapping[str, Any] = dataclasses.field(default_factory=dict)  # the backend's KIND options
    workers: int | None = None       # sandbox slots; None = CPU count
    grace_s: float = 30.0            # how long a drain waits for in-flight work
    cache_size: int = 4096           # finished code results kept for identical tasks (0 = share in-flight only)
    metrics_port: int | None = None  # Prometheus /metrics on this port (0 = any free one); None = not served
    security: ServerSecurity = dataclasses.field(default_factory=ServerSecurity)  # TLS, mTLS; default plaintext
    auth_token_file: Path | None = None  # bearer tokens, one a line; None = no token asked
    health_port: int | None = None   # grpc.health.v1 alone, in plaintext, for probes that cannot speak TLS


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class RewardServer:
    def __init__(self, config: ServerConfig, backend: Backend | None = None) -> None:
        self.config = config
        self.table = LanguageTable.load()
        self.pool = SandboxPool(backend or BACKENDS[config.backend].create(**config.backend_options),
                                config.workers)
        self.grader = CodeGrader(self.table, self.pool)
        self.metrics = ServerMetrics()
        self.metrics.watch_pool(self.pool.stats)
        self.port = 0
        self.metrics_port: int | None = None
        self.health_port: int | None = None
        self.health_server: grpc.aio.Server | None = None

    async def start(self) -> int:
        """Read the credentials, start the pool, then serve; grpc.aio objects are made here, on the loop that
        runs them. CredentialsError before any sandbox exists."""
        credentials = self.config.security.server_credentials()
        tokens = read_tokens(self.config.auth_token_file) if self.config.auth_token_file else None
        await self.pool.start()
        self.metrics.limits_mode(self.pool.backend.limits().mode)
        try:
            return await self._serve(credentials, tokens)
        except BaseException:
            await self.pool.close()  # a port that cannot be bound leaves no sandboxes behind
            raise

    async def _serve(self, credentials: grpc.ServerCredentials | None, tokens: tuple[str, ...] | None) -> int:
        self.health = health.aio.HealthServicer()
        self.server = grpc.aio.server(interceptors=[TokenAuth(tokens)] if tokens else None, options=[
            *MESSAGE_SIZE_OPTIONS,
            ("grpc.so_reuseport", 0),
            ("grpc.max_connection_age_ms", MAX_CONNECTION_AGE_S * 1000),
        ])
        reward_pb2_grpc.add_RewardServiceServicer_to_server(
            RewardService(self.table, self.grader, self.pool.backend, self.metrics,
                          ResultCache(self.config.cache_size)), self.server)
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        health_name = health_pb2.DESCRIPTOR.services_by_name["Health"].full_name
        reflection.enable_server_reflection((SERVICE_NAME, health_name, reflection.SERVICE_NAME), self.server)
        self.port = _bind(self.server, self.config.host, self.config.port, credentials)
        if self.config.health_port is not None:
            self.health_server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
            health_pb2_grpc.add_HealthServicer_to_server(self.health, self.health_server)
            self.health_port = _bind(self.health_server, self.config.host, self.config.health_port, None)
            await self.health_server.start()
        await self.server.start()
        self._warn_if_exposed(tls=credentials is not None, tokens=tokens is not None)
        if self.config.metrics_port is not None:
            self.metrics_port = self.metrics.serve(self.config.metrics_port, self.config.host)
        await self._set_health(health_pb2.HealthCheckResponse.SERVING)
        log.info("serving on %s:%d backend=%s limits=%s slots=%d", self.config.host, self.port,
                 self.pool.backend.name, self.pool.backend.limits().mode, self.pool.scheduler.slots)
        return self.port

    async def stop(self) -> None:
        """Drain: report NOT_SERVING, refuse new calls, finish in-flight work, then release the sandboxes."""
        log.info("draining (grace %.0fs)", self.config.grace_s)
        await self._set_health(health_pb2.HealthCheckResponse.NOT_SERVING)
        await self.server.stop(self.config.grace_s)
        if self.health_server is not None:
            await self.health_server.stop(None)
        await self.pool.close()
        self.metrics.close()
        log.info("stopped")

    def _warn_if_exposed(self, *, tls: bool, tokens: bool) -> None:
        if is_loopback(self.config.host):
            return
        if not tls:
            log.warning("serving %s in plaintext beyond loopback: candidates, results and any token cross the "
                        "network readable (--tls-cert/--tls-key)", self.config.host)
        if not tokens and not self.config.security.mtls:
            log.warning("serving %s beyond loopback with no client authentication: whoever reaches the port runs "
                        "programs here (--auth-token-file or --tls-client-ca)", self.config.host)

    async def _set_health(self, status: int) -> None:
        for name in ("", SERVICE_NAME):
            await self.health.set(name, status)

    async def serve_until_signalled(self) -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await self.start()
        print(f"reward-server listening on {self.config.host}:{self.port}", flush=True)
        if self.metrics_port is not None:
            print(f"reward-server metrics on http://{self.config.host}:{self.metrics_port}/metrics", flush=True)
        if self.health_port is not None:
            print(f"reward-server health on {self.config.host}:{self.health_port}", flush=True)
        await stop.wait()
        await self.stop()


def _bind(server: grpc.aio.Server, host: str, port: int, credentials: grpc.ServerCredentials | None) -> int:
    address = f"{host}:{port}"
    try:
        return (server.add_secure_port(address, credentials) if credentials is not None
                else server.add_insecure_port(address))
    except RuntimeError as exc:  # grpc's way of saying the address is taken or invalid
        raise OSError(f"cannot bind {address}: {exc}") from None
