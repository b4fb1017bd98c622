"""The sandbox's own processes are out of its program's reach (issue 28; tests/sandbox_reach_cases.py): through a real
server on both paths a Python run takes, as root and as `nobody`, one slot, so that each honest program runs where an
attack ran just before. Where Yama is loaded its ptrace_scope is 0 for the test (classic ptrace rules, the weakest),
so that what refuses the attacks is the sandbox, not a host setting."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import tempfile
from collections.abc import Iterator

import pytest

from reward_server.client import RewardClient
from tests import sandbox_reach_cases
from tests.conftest import ROOT

PTRACE_SCOPE = pathlib.Path("/proc/sys/kernel/yama/ptrace_scope")
SERVE = ("--workers", "1", "--cache-size", "0")


@pytest.fixture(autouse=True)
def classic_ptrace() -> Iterator[None]:
    """ptrace_scope 0 while the test runs (without Yama, as here, the rules are already the classic ones)."""
    if not PTRACE_SCOPE.exists():
        yield
        return
    before = PTRACE_SCOPE.read_text()
    PTRACE_SCOPE.write_text("0")
    try:
        yield
    finally:
        PTRACE_SCOPE.write_text(before)


@pytest.mark.parametrize("zygote", ["on", "off"])
def test_as_root_every_attack_keeps_the_program_s_own_verdict(start_server, zygote: str) -> None:
    server = start_server(*SERVE, "--zygote", zygote, "--metrics-port", "0")
    with RewardClient(server.address) as client:
        report = sandbox_reach_cases.score(client)
    assert sandbox_reach_cases.problems(report) == [], server.stderr_text()[-3000:]
    assert sandbox_reach_cases.retried_steps(server.metrics_url) == 0     # no attack took a sandbox down, even once


@pytest.mark.parametrize("zygote", ["on", "off"])
def test_without_root_every_attack_keeps_the_program_s_own_verdict(zygote: str) -> None:
    """As `nobody`, where every slot runs as the server's own uid, which owns the pipes the sandbox reports on."""
    with tempfile.TemporaryDirectory() as view:     # in $TMPDIR itself: nobody may enter it
        os.chmod(view, 0o755)
        done = subprocess.run(sandbox_reach_cases.as_nobody(ROOT, pathlib.Path(view), "--", *SERVE, "--zygote", zygote),
                              capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert "not root: every slot runs as uid" in report["server_log"]
    assert sandbox_reach_cases.problems(report["cases"]) == [], report["server_log"][-3000:]
    assert report["retried"] == 0
