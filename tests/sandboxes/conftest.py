"""Real process backends for the whole sandbox suite (starting one mounts tmpfs and makes cgroups): `backend` (and
`zygote_backend`) forks Python runs from each slot's zygote, the default; `spawn_backend` spawns every run;
`python_backend` is each in turn, so that a test of Python runs holds on both paths."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator

import pytest

from sandboxes.backends.process.backend import ProcessBackend
from sandboxes.languages import LanguageTable

SLOTS = 3


@pytest.fixture(scope="session")
def table() -> LanguageTable:
    return LanguageTable.load()


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
    yield from _started(zygote=False)


@pytest.fixture(scope="session")
def backend(zygote_backend: ProcessBackend) -> ProcessBackend:
    return zygote_backend


@pytest.fixture(scope="session", params=["zygote", "spawn"])
def python_backend(request: pytest.FixtureRequest) -> ProcessBackend:
    return request.getfixturevalue(f"{request.param}_backend")
