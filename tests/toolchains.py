"""Which languages the tests require ready: every one the host setup installs, read off the language table.

sandboxes/setup.sh installs the Debian packages of every language but those whose toolchain comes only as an
official release tarball (`release`: julia, swift), which their docker images unpack and the host never has. A
hand-kept list went stale as languages were added, and a broken toolchain turned their tests into skips that nobody
read; derived here, a new language is required the moment the table has it.
"""

from __future__ import annotations

import functools

import pytest

from tests.language_table import load_table


@functools.cache
def hosted() -> frozenset[str]:
    """The keys of the languages the host setup installs: these must be ready wherever the tests run."""
    return frozenset(language.key for language in load_table() if language.release is None)


def not_hosted_reason(key: str) -> str:
    """The skip reason of a test of a language the host cannot have (tests/skips.py allows it)."""
    return f"{key} is not on the host: its toolchain is an official release, unpacked in its docker image only"


def require_ready(key: str, ready: bool, reason: str = "") -> None:
    """Returns when `key` is ready; fails the test when the host setup installs it (its toolchain is broken), and
    skips it when the host cannot have it."""
    if ready:
        return
    if key in hosted():
        pytest.fail(f"{key} is not ready ({reason or 'no reason given'}), yet sandboxes/setup.sh installs it")
    pytest.skip(not_hosted_reason(key))
