"""Docker backend fixtures: a private dockerd and registry, the test languages' images built and pinned once.

The engine is Debian's docker.io started by the tests themselves (sandboxes/backends/docker/setup_docker.sh
installs it); images are built by the real `reward-server images build` and pinned in locks of the
session's own, so nothing depends on a registry outside this machine. Two locks: BUILT, the few languages
most tests need, and every imaged language (IMAGED) for the backends' differential test, built once per
session (`images build` runs a few builds at a time; the engine's cache keeps the layers across runs).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import docker
import pytest
import pytest_asyncio

from reward_server.graders.code import CodeGrade, CodeGrader, CodeJob
from sandboxes.backends.docker.backend import LABEL, DockerBackend
from sandboxes.backends.docker.engine import Engine, private_engine
from sandboxes.backends.docker.lock import ImageLock
from sandboxes.languages import LanguageTable
from sandboxes.pool import SandboxPool
from tests.language_table import load_table

ROOT = Path(__file__).resolve().parents[2]
BUILT = ("python", "cpp", "java", "javascript", "lua")
# Every language the table images from Debian packages; those from an official release (julia, swift) need the
# network to their hosts and are tested apart (test_releases.py).
IMAGED = tuple(language.key for language in load_table() if language.docker_image and not language.release)
BUILD_TIMEOUT_S = 3600


@pytest.fixture(scope="session")
def engine() -> Iterator[Engine]:
    with private_engine() as engine:
        yield engine


@pytest.fixture(scope="session")
def docker_client(engine: Engine) -> Iterator[docker.DockerClient]:
    client = docker.DockerClient(base_url=engine.url, timeout=300)
    yield client
    client.close()


def build_and_pin(engine: Engine, languages: tuple[str, ...], path: Path) -> Path:
    """`reward-server images build LANGUAGES` into the lock at `path`: build, push, pin."""
    proc = subprocess.run(
        [sys.executable, "-m", "reward_server", "images", "build", *languages, "--registry", engine.registry,
         "--lock", str(path), "--docker-host", engine.url],
        cwd=ROOT, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert set(ImageLock.load(path).images) == set(languages), proc.stdout
    return path


@pytest.fixture(scope="session")
def lock_path(engine: Engine, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build, push and pin the test languages with the real CLI (cached layers make reruns fast)."""
    return build_and_pin(engine, BUILT, tmp_path_factory.mktemp("lock") / "images.lock")


@pytest.fixture(scope="session")
def lock(lock_path: Path) -> ImageLock:
    return ImageLock.load(lock_path)


@pytest.fixture(scope="session")
def imaged_lock_path(engine: Engine, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every imaged language built, pushed and pinned by one `images build`."""
    return build_and_pin(engine, IMAGED, tmp_path_factory.mktemp("imaged") / "images.lock")


def write_lock(lock: ImageLock, directory: Path) -> Path:
    path = directory / "images.lock"
    lock.save(path)
    return path


@pytest_asyncio.fixture
async def start_backend(engine: Engine, lock_path: Path, table: LanguageTable) -> AsyncIterator:
    """start_backend(lock_path=None, **DockerBackend kwargs) -> a started backend, closed at test end."""
    started: list[DockerBackend] = []

    async def start(path: Path | None = None, slots: int = 2, **kwargs) -> DockerBackend:
        backend = DockerBackend(path or lock_path, table=table, docker_url=engine.url, **kwargs)
        started.append(backend)
        await backend.start(slots)
        return backend

    yield start
    for backend in started:
        await backend.close()


def grader_for(backend, table: LanguageTable, slots: int = 2) -> CodeGrader:
    return CodeGrader(table, SandboxPool(backend, slots))


async def grade(grader: CodeGrader, job: CodeJob, deadline: float | None = None) -> CodeGrade:
    return await grader.grade(job, priority=0, caller="tests", deadline=deadline)


def own_containers(client: docker.DockerClient, backend: DockerBackend) -> list:
    return client.containers.list(all=True, filters={"label": f"{LABEL}={backend.instance_id}"})
