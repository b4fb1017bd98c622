"""Shared fixtures: real reward servers as subprocesses on loopback (no mocks of our own parts)."""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

ROOT = pathlib.Path(__file__).resolve().parent.parent
START_TIMEOUT_S = 60.0


class ServerHandle:
    """A `reward-server serve` subprocess on a free loopback port."""

    def __init__(self, *extra_args: str) -> None:
        # a file, not a pipe: a chatty server never blocks
        self.log = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 (lives as long as the server)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "reward_server", "serve", "--port", "0", *extra_args],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=self.log, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        line = self.process.stdout.readline()
        if "listening on" not in line:
            self.process.kill()
            self.process.wait()
            raise RuntimeError(f"server did not start: {line!r}\n{self.stderr_text()}")
        self.address = line.rsplit(" ", 1)[-1].strip()
        self._wait_serving()

    def _wait_serving(self) -> None:
        give_up = time.monotonic() + START_TIMEOUT_S
        with grpc.insecure_channel(self.address) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            while True:
                try:
                    if stub.Check(health_pb2.HealthCheckRequest(), timeout=2).status == 1:
                        return
                except grpc.RpcError:
                    if time.monotonic() > give_up:
                        raise
                time.sleep(0.1)

    def stop(self, sig: int = signal.SIGTERM, timeout_s: float = 60.0) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode

    def stderr_text(self) -> str:
        """The server's log so far."""
        self.log.seek(0)
        return self.log.read()


@pytest.fixture(scope="session")
def server_address() -> Iterator[str]:
    server = ServerHandle()
    yield server.address
    assert server.stop() == 0, server.stderr_text()


@pytest.fixture
def start_server() -> Iterator:
    started: list[ServerHandle] = []

    def start(*extra_args: str) -> ServerHandle:
        server = ServerHandle(*extra_args)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
