"""Shared fixtures: real reward servers as subprocesses on loopback (no mocks of our own parts)."""

from __future__ import annotations

import os
import pathlib
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from reward_server.client import RewardClient
from reward_server.loadtest.scrape import scrape, total
from reward_server.pb import reward_pb2

pytest_plugins = ("tests.skips", "tests.language_table")   # --strict-skips; the session-wide `table` fixture

ROOT = pathlib.Path(__file__).resolve().parent.parent
START_TIMEOUT_S = 60.0


class ServerHandle:
    """A `reward-server serve` subprocess on a free loopback port."""

    def __init__(self, *extra_args: str, python: Sequence[str] = (sys.executable,)) -> None:
        """`python`: how to start the interpreter (tests/nobody.py's argv, to serve as `nobody`)."""
        # a file, not a pipe: a chatty server never blocks
        self.log = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 (lives as long as the server)
        self.process = subprocess.Popen(
            [*python, "-m", "reward_server", "serve", "--port", "0", *extra_args],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=self.log, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        line = self.process.stdout.readline()
        if "listening on" not in line:
            self.process.kill()
            self.process.wait()
            raise RuntimeError(f"server did not start: {line!r}\n{self.stderr_text()}")
        self.address = line.rsplit(" ", 1)[-1].strip()
        self.metrics_url: str | None = None     # with --metrics-port: the URL on the line after the address
        if "--metrics-port" in extra_args:
            self.metrics_url = re.search(r"(http://\S+/metrics)", self.process.stdout.readline()).group(1)
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


@pytest.fixture(scope="module", params=["zygote", "spawn"])
def python_path(request: pytest.FixtureRequest) -> str:
    """The path Python runs take: forked by their slot's zygote, or spawned (--zygote off); a module that asks
    for `path_server_address` or `path_client` runs every test on both."""
    return request.param


@pytest.fixture(scope="module")
def path_server_address(python_path: str) -> Iterator[str]:
    server = ServerHandle("--zygote", "on" if python_path == "zygote" else "off")
    yield server.address
    assert server.stop() == 0, server.stderr_text()


@pytest.fixture(scope="module")
def path_client(path_server_address: str) -> Iterator[RewardClient]:
    with RewardClient(path_server_address) as client:
        yield client


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


@pytest.fixture
def start_replicas(start_server) -> Callable[[int, int], list[ServerHandle]]:
    """start(count, workers): replicas that serve /metrics too (`metrics_url`), so a test can see which one
    graded what."""

    def start(count: int, workers: int) -> list[ServerHandle]:
        return [start_server("--metrics-port", "0", "--workers", str(workers)) for _ in range(count)]

    return start


def wait_for(condition: Callable[[], object], what: str, timeout_s: float = 30.0) -> None:
    """Until `condition()` holds: a state to wait on, never a guess at how long it takes; fails naming `what`."""
    give_up = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < give_up, f"{what}: not after {timeout_s:.0f}s"
        time.sleep(0.05)


def wait_grading(server: ServerHandle) -> None:
    """Until the replica's pool is running a candidate: stopping it now cuts a batch in the middle."""
    wait_for(lambda: total(scrape(server.metrics_url), "reward_pool_busy") >= 1, f"{server.address} grading")


def score_killing(client: RewardClient, candidates: Sequence[reward_pb2.Candidate],
                  victim: ServerHandle) -> list[reward_pb2.ScoreResult]:
    """The batch's results, with `victim` killed (SIGKILL) while it grades its share."""
    results: list[reward_pb2.ScoreResult] = []
    scoring = threading.Thread(target=lambda: results.extend(client.score(candidates, timeout_s=120)))
    scoring.start()
    wait_grading(victim)
    victim.process.kill()
    scoring.join(150)
    assert not scoring.is_alive()
    return results
