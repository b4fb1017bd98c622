"""A sandbox that dies under a run is never the program's fault (docs/guards.md, "Sandbox deaths").

HumanEval's canonical and broken programs go through a real server while its own sandbox processes are SIGKILLed
at random, many times per batch: zygotes and everything running zygote.py on the zygote path, launchers and
bubblewrap on the spawn path. No canonical program gets a model-fault verdict, no broken one passes, at most a few
are INFRA, none is lost, and a clean batch right afterwards grades right. A program that kills itself, or exceeds its
memory, keeps its verdict.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable

import pytest

from reward_server.client import RewardClient
from reward_server.loadtest.scrape import scrape, total
from tests.candidates import function_style, python_script, stdio, verdict_name
from tests.conftest import wait_for
from tests.sandbox_killers import (
    cmdline,
    descendants,
    grade_while_killing,
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
    server = start_server("--workers", "4", "--zygote", zygote, "--cache-size", "0", "--metrics-port", "0")
    batch = humaneval_batch(plain=zygote == "on")     # what the zygote forks: function-style tests run spawned, split
    with RewardClient(server.address) as client:
        grade_while_killing(client, batch, lambda: targets(server.process.pid), interval_s, ROUNDS, timeout_s=900)
        grades_clean(client, batch)
    assert server.process.poll() is None
    samples = scrape(server.metrics_url)
    assert total(samples, "reward_sandbox_deaths_total") >= 1        # the operator sees the sick host
    assert total(samples, "reward_sandbox_retried_steps_total") >= 1


def programs(server_pid: int) -> list[int]:
    return [pid for pid in descendants(server_pid) if cmdline(pid)[1:] == ["main.py"]]


def run_inits(server_pid: int) -> list[int]:
    return [pid for pid in descendants(server_pid) if cmdline(pid) == ["/tmp/run-init"]]


def named(name: str) -> Callable[[int], list[int]]:
    """The spawn path's processes of one kind: "launcher", "bwrap" (both of them) or "reaper" (the sandbox's init)."""
    return lambda server_pid: [pid for pid in launchers_and_bubblewraps(server_pid)
                               if os.path.basename(cmdline(pid)[0]) == name]


def scored_killing_once(server, candidate, targets: Callable[[int], list[int]]) -> list:
    """`candidate`'s results, with the first of `targets` SIGKILLed once while its program runs."""
    with RewardClient(server.address) as client:
        results: list = []
        scoring = threading.Thread(target=lambda: results.extend(client.score([candidate])))
        scoring.start()
        wait_for(lambda: programs(server.process.pid), "the program running")
        [victim] = targets(server.process.pid)[:1]
        os.kill(victim, signal.SIGKILL)
        scoring.join()
    return results


@pytest.mark.parametrize(("zygote", "targets", "cause"), [
    ("on", programs, "unexplained_kill"),
    ("on", run_inits, "sandbox_failed"),
    ("on", zygotes, "sandbox_failed"),
    ("off", programs, "unexplained_kill"),
    ("off", named("launcher"), "sandbox_failed"),
    ("off", named("bwrap"), "sandbox_failed"),
    ("off", named("reaper"), "sandbox_failed"),
])
def test_a_run_killed_once_from_outside_goes_again(start_server, zygote: str, targets, cause: str) -> None:
    """One SIGKILL, while the program sleeps, of its own process or of the sandbox around it: the run goes again and
    passes."""
    server = start_server("--zygote", zygote, "--cache-size", "0", "--metrics-port", "0")
    sleeper = python_script("sleeper", "import time\ntime.sleep(1.5)\nprint('ok')\n", "ok", timeout_s=10)
    results = scored_killing_once(server, sleeper, targets)
    assert [(verdict_name(r), r.detail) for r in results] == [("PASS", "1 test(s) passed")], results
    samples = scrape(server.metrics_url)
    assert total(samples, "reward_sandbox_retried_steps_total") == 1
    assert total(samples, "reward_sandbox_deaths_total", cause=cause) == 1


# a program that answers right only where it finds what a first try of its run wrote (in its directory and its
# /tmp), and takes its time before it answers wrong
REMEMBERS = ("    import os, time\n"
             "    if os.path.exists('first-try') or os.path.exists('/tmp/first-try'):\n"
             "        return a + b\n"
             "    for where in ('first-try', '/tmp/first-try'):\n"
             "        open(where, 'w').close()\n"
             "    time.sleep(1.5)\n"
             "    return a - b\n")


@pytest.mark.parametrize(("zygote", "targets"), [("on", zygotes), ("off", named("bwrap"))])
def test_a_run_that_goes_again_sees_nothing_of_its_first_try(start_server, zygote: str, targets) -> None:
    """Its sandbox killed once while the program sleeps: the run goes again from a fresh workspace, where what the
    first try wrote is gone, so the program fails as a first try does."""
    server = start_server("--zygote", zygote, "--cache-size", "0", "--metrics-port", "0")
    candidate = function_style("remembers", "python", "def add(a, b):\n", REMEMBERS,
                               "def check(candidate):\n    assert candidate(2, 3) == 5\n\ncheck(add)\n")
    results = scored_killing_once(server, candidate, targets)
    assert [verdict_name(r) for r in results] == ["RUNTIME_ERROR"], results
    assert total(scrape(server.metrics_url), "reward_sandbox_retried_steps_total") == 1


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
