"""The end-of-tests marker: proof that a function-style program's tests ran to the end (docs/guards.md).

A program can end itself successfully before its tests finish (`sys.exit(0)`, `process.exit(0)`, an exit handler
that forces status 0). So each run gets a fresh random marker that only harness code placed after the tests
writes to stderr; exit 0 without it is `EXITED_EARLY`. It is stripped from the stderr that results show.
Tests in a process of their own (the split) hold it where the program never reaches (their files, their process), so
there it is the problem's, the same for every completion of a group (the tests' side is then built once per problem):
a keyed hash of the problem under a secret of this server process, which nobody outside it can compute.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

PLACEHOLDER = "{marker}"          # where harness code (the language table's data) writes the marker
EXITED_EARLY_DETAIL = "exited 0 before its tests finished (no end-of-tests marker)"


_SECRET = secrets.token_bytes(32)


def new_marker() -> str:
    return secrets.token_hex(16)


def problem_marker(*problem: str) -> str:
    """The marker of the problem whose parts (its language, prompt and tests) are `problem`."""
    message = b"\0".join(part.encode("utf-8", "surrogatepass") for part in problem)
    return hmac.new(_SECRET, message, hashlib.sha256).hexdigest()[:32]


def fill(template: str, marker: str) -> str:
    return template.replace(PLACEHOLDER, marker)


def take(stderr: bytes, marker: str) -> tuple[bool, bytes]:
    """Whether stderr carries the marker, and stderr without it (the marker's line, or the bare marker)."""
    token = marker.encode()
    return token in stderr, stderr.replace(token + b"\n", b"").replace(token, b"")
