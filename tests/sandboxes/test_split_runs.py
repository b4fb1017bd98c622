"""A split's run on both of a Python run's paths (forked by the slot's zygote, and spawned through pair): the tests
killed by SIGKILL are their own failure, never a sandbox death run again. Where the kernel does not scope signals
(Landlock ABI < 6) the program may have sent it, and a retry would find its files of the first try in `p/`."""

from __future__ import annotations

import pytest

from sandboxes.backends.process.backend import ProcessBackend
from sandboxes.results import Limits, RunStatus

LIMITS = Limits(timeout_s=5, memory_mb=256)
PROGRAM = "import sys\nsys.stdin.buffer.read()\n"       # waits for calls that never come
KILLED = "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n"


@pytest.mark.asyncio
async def test_tests_killed_are_their_failure_on_both_paths(python_backend: ProcessBackend, table) -> None:
    retried = python_backend.deaths.retried
    async with python_backend.workspace(table.resolve("python"), PROGRAM, 0, tests=KILLED) as workspace:
        result = await workspace.run(b"", LIMITS, None)
    assert (result.status, result.exit_code) == (RunStatus.EXIT_NONZERO, 1), result
    assert python_backend.deaths.retried == retried
