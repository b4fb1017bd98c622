"""One real process backend for the whole sandbox suite (starting one mounts tmpfs and makes cgroups)."""

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


@pytest.fixture(scope="session")
def backend() -> Iterator[ProcessBackend]:
    if os.geteuid() != 0:
        pytest.skip("the process backend needs root")
    backend = ProcessBackend()
    asyncio.run(backend.start(SLOTS))
    try:
        yield backend
    finally:
        asyncio.run(backend.close())
