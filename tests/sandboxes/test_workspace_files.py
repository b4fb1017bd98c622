"""Extra files next to a workspace's source and arguments after its run command (what checkers and call harnesses
need), on the process backend; a name that is not a plain file name is refused."""

from __future__ import annotations

import asyncio

import pytest

from sandboxes.backend import SandboxError
from sandboxes.backends.process.backend import ProcessBackend
from sandboxes.languages import LanguageTable
from sandboxes.results import Limits, RunStatus

LIMITS = Limits(timeout_s=5, memory_mb=256)
READER = "import sys\nfor name in sys.argv[1:]:\n    print(name, open(name, encoding='utf-8').read())\n"
NOT_PLAIN = ("../escape", "dir/file", "", ".", "..", "main.py")


def test_extra_files_and_arguments(backend: ProcessBackend, table: LanguageTable) -> None:
    python = table.resolve("python")

    async def run() -> list[tuple[RunStatus, str]]:
        outputs = []
        async with backend.workspace(python, READER, 2, {"input0": "3\n", "answer0": "1 2 3 ✓\n"}) as workspace:
            for args in (("input0", "answer0"), ()):
                result = await workspace.run(b"", LIMITS, None, args)
                outputs.append((result.status, result.stdout.decode()))
        for name in NOT_PLAIN:
            with pytest.raises(SandboxError, match="not a plain file name"):
                async with backend.workspace(python, READER, 2, {name: "x"}):
                    pass
        async with backend.workspace(python, READER, 2) as workspace:   # the slot is free again
            result = await workspace.run(b"", LIMITS, None)
            outputs.append((result.status, result.stdout.decode()))
        return outputs

    assert asyncio.run(run()) == [(RunStatus.OK, "input0 3\n\nanswer0 1 2 3 ✓\n\n"), (RunStatus.OK, ""),
                                  (RunStatus.OK, "")]
