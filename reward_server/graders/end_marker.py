"""The end-of-tests marker: proof that a function-style program's tests ran to the end (docs/guards.md).

A program can end itself successfully before its tests finish (`sys.exit(0)`, `process.exit(0)`, an exit handler
that forces status 0). So each run gets a fresh random marker that only harness code placed after the tests
writes to stderr; exit 0 without it is `EXITED_EARLY`. It is stripped from the stderr that results show.
"""

from __future__ import annotations

import secrets

PLACEHOLDER = "{marker}"          # where harness code (the language table's data) writes the marker
EXITED_EARLY_DETAIL = "exited 0 before its tests finished (no end-of-tests marker)"


def new_marker() -> str:
    return secrets.token_hex(16)


def fill(template: str, marker: str) -> str:
    return template.replace(PLACEHOLDER, marker)


def take(stderr: bytes, marker: str) -> tuple[bool, bytes]:
    """Whether stderr carries the marker, and stderr without it (the marker's line, or the bare marker)."""
    token = marker.encode()
    return token in stderr, stderr.replace(token + b"\n", b"").replace(token, b"")
