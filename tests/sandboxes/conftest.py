"""Real process backends for the whole sandbox suite (starting one mounts tmpfs and makes cgroups): `backend` (and
`zygote_backend`) forks Python runs from each slot's zygote, the default; `spawn_backend` spawns every run;
`python_backend` is each in turn, so that a test of Python runs holds on both paths; `rlimit_backend` uses no
cgroups."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator

import pytest

from sandboxes.backends.process.backend import ProcessBackend
from sandboxes.languages import Language, LanguageTable
from tests.toolchains import require_ready

SLOTS = 3


def _started(**options) -> Iterator[ProcessBackend]:
    if os.geteuid() != 0:
        pytest.skip("the process backend needs root")
    backend = ProcessBackend(**options)
    asyncio.run(backend.start(SLOTS))
    try:
        yield backend
    finally:
        asyncio.run(backend.close())


@pytest.fixture(scope="session")
def zygote_backend() -> Iterator[ProcessBackend]:
    yield from _started()


@pytest.fixture(scope="session")
def spawn_backend() -> Iterator[ProcessBackend]:
    yield from _started(fork_from_zygotes=False)


@pytest.fixture(scope="session")
def rlimit_backend() -> Iterator[ProcessBackend]:
    """Without cgroups (`serve --limits rlimit`): every limit an rlimit, every measure the run's own account."""
    yield from _started(limits="rlimit")


@pytest.fixture(scope="session")
def backend(zygote_backend: ProcessBackend) -> ProcessBackend:
    return zygote_backend


@pytest.fixture(scope="session", params=["default", "rlimit"])
def limits_backend(request: pytest.FixtureRequest) -> ProcessBackend:
    """The default backend, then the one without cgroups."""
    return request.getfixturevalue("zygote_backend" if request.param == "default" else "rlimit_backend")


@pytest.fixture(scope="session", params=["zygote", "spawn"])
def python_backend(request: pytest.FixtureRequest) -> ProcessBackend:
    return request.getfixturevalue(f"{request.param}_backend")


def ready(table: LanguageTable, backend: ProcessBackend, key: str) -> Language:
    """The table's language `key`, ready: else the test fails, or skips where the host cannot have it
    (tests/toolchains.py)."""
    language = table.resolve(key)
    info = backend.describe(language)
    require_ready(language.key, info.ready, info.reason)
    return language
