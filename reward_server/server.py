"""Assembling and running the gRPC server: service, health, reflection, graceful drain on SIGTERM/SIGINT."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import signal

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from reward_server.graders.code import CodeGrader
from reward_server.metrics import ServerMetrics
from reward_server.pb import reward_pb2, reward_pb2_grpc
from reward_server.result_cache import ResultCache
from reward_server.service import RewardService
from sandboxes.backend import Backend
from sandboxes.languages import LanguageTable
from sandboxes.pool import SandboxPool

log = logging.getLogger(__name__)

SERVICE_NAME = reward_pb2.DESCRIPTOR.services_by_name["RewardService"].full_name
MAX_MESSAGE_BYTES = 256 << 20


@dataclasses.dataclass
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 50051
    backend: str = "process"
    workers: int | None = None       # sandbox slots; None = CPU count
    grace_s: float = 30.0            # how long a drain waits for in-flight work
    cache_size: int = 4096           # finished code results kept for identical tasks (0 = share in-flight only)
    warm: int = 1                    # docker: idle containers kept per pinned language (0 = one per candidate)
    recycle_after: int = 100         # docker: jobs a container serves before it is replaced
    metrics_port: int | None = None  # Prometheus /metrics on this port (0 = any free one); None = not served


def make_backend(config: ServerConfig) -> Backend:
    """The backends import lazily: the docker SDK is only needed by the docker backend."""
    if config.backend == "process":
        from sandboxes.backends.process import ProcessBackend
        return ProcessBackend()
    if config.backend == "docker":
        from sandboxes.backends.docker import DockerBackend
        return DockerBackend(warm=config.warm, recycle_after=config.recycle_after)
    raise ValueError(f"unknown backend {config.backend!r}")


class RewardServer:
    def __init__(self, config: ServerConfig, backend: Backend | None = None) -> None:
        self.config = config
        self.table = LanguageTable.load()
        self.pool = SandboxPool(backend or make_backend(config), config.workers)
        self.grader = CodeGrader(self.table, self.pool)
        self.metrics = ServerMetrics()
        self.metrics.watch_pool(self.pool.stats)
        self.port = 0
        self.metrics_port: int | None = None

    async def start(self) -> int:
        """Start the pool, then serve; grpc.aio objects are made here, on the loop that runs them."""
        await self.pool.start()
        try:
            return await self._serve()
        except BaseException:
            await self.pool.close()  # a port that cannot be bound leaves no sandboxes behind
            raise

    async def _serve(self) -> int:
        self.health = health.aio.HealthServicer()
        self.server = grpc.aio.server(options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
            ("grpc.so_reuseport", 0),
        ])
        reward_pb2_grpc.add_RewardServiceServicer_to_server(
            RewardService(self.table, self.grader, self.pool.backend.name, self.metrics,
                          ResultCache(self.config.cache_size)), self.server)
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        health_name = health_pb2.DESCRIPTOR.services_by_name["Health"].full_name
        reflection.enable_server_reflection((SERVICE_NAME, health_name, reflection.SERVICE_NAME), self.server)
        address = f"{self.config.host}:{self.config.port}"
        try:
            self.port = self.server.add_insecure_port(address)
        except RuntimeError as exc:  # grpc's way of saying the address is taken or invalid
            raise OSError(f"cannot bind {address}: {exc}") from None
        await self.server.start()
        if self.config.metrics_port is not None:
            self.metrics_port = self.metrics.serve(self.config.metrics_port, self.config.host)
        await self._set_health(health_pb2.HealthCheckResponse.SERVING)
        log.info("serving on %s:%d backend=%s slots=%d", self.config.host, self.port, self.pool.backend.name,
                 self.pool.scheduler.slots)
        return self.port

    async def stop(self) -> None:
        """Drain: report NOT_SERVING, refuse new calls, finish in-flight work, then release the sandboxes."""
        log.info("draining (grace %.0fs)", self.config.grace_s)
        await self._set_health(health_pb2.HealthCheckResponse.NOT_SERVING)
        await self.server.stop(self.config.grace_s)
        await self.pool.close()
        self.metrics.close()
        log.info("stopped")

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
        await stop.wait()
        await self.stop()
