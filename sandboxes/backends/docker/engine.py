"""A private Docker engine and image registry on loopback, for hosts that run no system engine.

Tests, the pool benchmark and image builds on a bare host use it: Debian's `dockerd` with its own
data/exec roots and no bridge or iptables (the sandboxes never get a network anyway), and Debian's
`docker-registry` on 127.0.0.1 so that pushed images get real registry (@sha256) digests. The data root
and registry storage live under a stable cache directory so a rerun reuses built layers; an flock on
that directory keeps two engines off the same data root.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import logging
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import docker
import docker.errors
import requests.exceptions

log = logging.getLogger(__name__)

CACHE_DIR = Path(os.environ.get("REWARD_SANDBOX_CACHE", "/var/cache/reward-sandbox"))
START_TIMEOUT_S = 90.0
LOCK_TIMEOUT_S = 600.0


class EngineError(RuntimeError):
    """The private engine or registry could not be started."""


@dataclasses.dataclass(frozen=True)
class Engine:
    url: str         # unix:///.../docker.sock, for docker.DockerClient(base_url=...) or DOCKER_HOST
    registry: str    # 127.0.0.1:PORT


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(check, what: str, proc: subprocess.Popen, log_path: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise EngineError(f"{what} exited with {proc.returncode}: {log_path.read_text()[-2000:]}")
        if check():
            return
        time.sleep(0.2)
    raise EngineError(f"{what} not ready after {START_TIMEOUT_S:.0f}s; log: {log_path}")


def engine_up(url: str) -> bool:
    try:
        with contextlib.closing(docker.DockerClient(base_url=url, timeout=5)) as client:
            return bool(client.ping())
    except (docker.errors.DockerException, requests.exceptions.RequestException):
        return False


def registry_up(address: str) -> bool:
    try:
        return requests.get(f"http://{address}/v2/", timeout=2).status_code == 200
    except requests.exceptions.RequestException:
        return False


def stop(proc: subprocess.Popen, grace_s: float = 30.0) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(grace_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.contextmanager
def cache_lock(cache: Path) -> Iterator[None]:
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / "engine.lock", "w") as f:
        deadline = time.monotonic() + LOCK_TIMEOUT_S
        while True:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise EngineError(f"another private engine holds {cache}/engine.lock") from None
                time.sleep(1)
        yield


@contextlib.contextmanager
def private_engine(cache: Path = CACHE_DIR) -> Iterator[Engine]:
    """Start dockerd and the registry, yield their addresses, stop both (and their containers) at exit."""
    for tool in ("dockerd", "docker-registry"):
        if shutil.which(tool) is None:
            raise EngineError(f"{tool} not found: run sandboxes/backends/docker/setup_docker.sh (Debian docker.io, "
                              "docker-registry)")
    with (cache_lock(cache), tempfile.TemporaryDirectory(prefix="rsd-", dir="/tmp", ignore_cleanup_errors=True)
          as state, contextlib.ExitStack() as logs):
        run = Path(state)
        url = f"unix://{run}/docker.sock"
        dockerd_log = run / "dockerd.log"
        dockerd = subprocess.Popen(
            ["dockerd", "--host", url, "--data-root", str(cache / "dockerd"), "--exec-root", str(run / "x"),
             "--pidfile", str(run / "dockerd.pid"), "--bridge=none", "--iptables=false", "--ip6tables=false"],
            stdout=logs.enter_context(open(dockerd_log, "wb")), stderr=subprocess.STDOUT, start_new_session=True)
        registry_proc = None
        try:
            wait_until(lambda: engine_up(url), "dockerd", dockerd, dockerd_log)
            address = f"127.0.0.1:{free_port()}"
            config = run / "registry.yml"
            config.write_text(
                "version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n"
                f"    rootdirectory: {cache / 'registry'}\n  delete:\n    enabled: true\n"
                f"http:\n  addr: {address}\n")
            registry_log = run / "registry.log"
            registry_proc = subprocess.Popen(["docker-registry", "serve", str(config)],
                                             stdout=logs.enter_context(open(registry_log, "wb")),
                                             stderr=subprocess.STDOUT,
                                             start_new_session=True)
            wait_until(lambda: registry_up(address), "docker-registry", registry_proc, registry_log)
            log.info("private engine %s, registry %s", url, address)
            yield Engine(url, address)
        finally:
            try:
                if registry_proc is not None:
                    stop(registry_proc, 10)
                remove_all_containers(url)
            finally:
                stop(dockerd)


def remove_all_containers(url: str) -> None:
    """This engine is ours alone: nothing it ran may outlive it."""
    if not engine_up(url):
        return
    with contextlib.closing(docker.DockerClient(base_url=url, timeout=60)) as client:
        for container in client.containers.list(all=True):
            with contextlib.suppress(docker.errors.APIError):
                container.remove(force=True)
