"""The project's language table, loaded once per test session: the `table` fixture for tests, and `load_table` for
what is decided before any fixture runs (the keys a test is parametrised over). A conftest makes the fixture
available to every test: tests/conftest.py lists this module in `pytest_plugins`."""

from __future__ import annotations

import functools

import pytest

from sandboxes.languages import LanguageTable


@functools.cache
def load_table() -> LanguageTable:
    return LanguageTable.load()


@pytest.fixture(scope="session", name="table")
def session_table() -> LanguageTable:
    return load_table()
