"""A sandbox that dies under a run is never the program's fault (docs/guards.md, "Sandbox deaths").

HumanEval's canonical and broken programs go through a real server while its own sandbox processes are SIGKILLed
at random, many times per batch: zygotes and everything running zygote.py on the zygote path, launchers and
bubblewrap on the spawn path. No canonical program gets a model-fault verdict, no broken one passes, at most a few
are INFRA, none is lost, and a clean batch right afterwards grades right. A program that kills itself, or exceeds its
memory, keeps its verdict.
"""

from __future__ import annotations

import pytest

from reward_server.client import RewardClient
from tests.candidates import stdio, verdict_name
from tests.sandbox_killers import (
    Killer,
    check_round,
    grades_clean,
    humaneval_batch,
    launchers_and_bubblewraps,
    running_zygote_py,
    zygotes,
)

ROUNDS = 3


@pytest.mark.parametrize(("zygote", "targets", "interval_s"), [
    ("on", zygotes, 0.25),
    ("on", running_zygote_py, 0.25),
    ("off", launchers_and_bubblewraps, 0.25),
])
def test_sandbox_deaths_are_never_the_program_s_fault(start_server, zygote: str, targets, interval_s: float) -> None:
    server = start_server("--workers", "4", "--zygote", zygote, "--cache-size", "0")
    batch = humaneval_batch()
    with RewardClient(server.address) as client:
        for round_ in range(ROUNDS):
            with Killer(lambda: targets(server.process.pid), interval_s, seed=round_) as killer:
                results = client.score(batch, timeout_s=900)
            assert killer.kills > 5, killer.kills
            check_round(results, batch)
        grades_clean(client, batch)
    assert server.process.poll() is None


SELF_KILL = "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n"
HOG = "x = bytearray(2 << 30)\nprint(len(x))\n"


@pytest.mark.parametrize("zygote", ["on", "off"])
def test_a_program_s_own_death_keeps_its_verdict(start_server, zygote: str) -> None:
    server = start_server("--zygote", zygote)
    with RewardClient(server.address) as client:
        killed, hog = client.score([stdio("self-kill", "python", SELF_KILL, [("", "")]),
                                    stdio("hog", "python", HOG, [("", "")], memory_mb=256)], timeout_s=300)
    assert verdict_name(killed) == "RUNTIME_ERROR" and "killed by SIGKILL" in killed.detail, killed
    assert verdict_name(hog) == "MEMORY_LIMIT", hog
