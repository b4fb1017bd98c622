"""The process backend on a real cgroup v2 kernel (Debian 12's own, in a VM: guest.py): a real server grades the
limits contract (tests/limits_cases.py: right and wrong python, cpp and bash programs, a CPU-time TIMEOUT,
MEMORY_LIMIT, a fork bomb, an output flood, CPU spent by what outlives the program, per-test CPU seconds and peak
memory) with `--limits cgroup` (cgroup v2, from inside a group that holds other processes, as a login session's scope
does), again with `--limits rlimit`, as `nobody` (rlimits), and as `nobody` in a group delegated to it (cgroup v2);
the verdicts are the ones tests/test_limits_modes.py gets on this host's cgroup v1. One boot: TCG runs Python about
ten times slower, so every time limit is scaled."""

from __future__ import annotations

import json
import pathlib
import shlex
import sys

import pytest

from tests import limits_cases
from tests.conftest import ROOT
from tests.vm import guest

UNAVAILABLE = guest.available()
pytestmark = [pytest.mark.skipif(UNAVAILABLE is not None, reason=f"no VM here: {UNAVAILABLE}"),
              pytest.mark.timeout(1800)]     # one boot runs the whole suite: about 10 minutes on 2 emulated cores

SCALE = 5
VIEW = "/tmp/repository-view"       # the guest's /tmp is its own tmpfs
CASES = f"{shlex.quote(sys.executable)} -m tests.limits_cases --scale {SCALE} --"
# A Debian host's shell sits in a session scope under a root that enables the controllers (systemd): so does this one.
SESSION = """cd /sys/fs/cgroup && echo '+memory +pids +cpu' > cgroup.subtree_control && mkdir session.scope
echo $$ > session.scope/cgroup.procs && cd - >/dev/null
"""


# A group delegated to nobody, as systemd's Delegate=yes hands one to a user: the directory and the files a delegatee
# writes are theirs. A shell moves itself into it, then runs the server as nobody.
DELEGATED = "/sys/fs/cgroup/delegated"
DELEGATE = (f"mkdir {DELEGATED} && chown nobody:nogroup {DELEGATED} {DELEGATED}/cgroup.procs "
            f"{DELEGATED}/cgroup.subtree_control {DELEGATED}/cgroup.threads")


def _as_nobody(limits: str) -> str:
    return shlex.join(limits_cases.as_nobody(ROOT, pathlib.Path(VIEW), "--scale", str(SCALE), "--",
                                             "--limits", limits))


def _script() -> str:
    return "\n".join([
        SESSION,
        f"echo \"=== doctor $(date +%s)\"; {shlex.quote(sys.executable)} -m reward_server doctor",
        f"echo \"=== cgroup $(date +%s)\"; {CASES} --limits cgroup",
        "echo \"=== groups after $(cat /proc/self/cgroup)\"",
        "find /sys/fs/cgroup/session.scope -mindepth 1 -maxdepth 1 -type d -printf '%f\\n'",
        f"echo \"=== rlimit $(date +%s)\"; {CASES} --limits rlimit",
        f"mkdir -m 755 {VIEW}; echo \"=== nobody $(date +%s)\"; {_as_nobody('auto')}",
        f"{DELEGATE}; echo \"=== delegated $(date +%s)\"",
        f"sh -c 'echo $$ > {DELEGATED}/cgroup.procs && exec \"$@\"' sh {_as_nobody('cgroup')}",
        "echo \"=== end $(date +%s)\"",
    ])


def _sections(output: str) -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {}
    lines: list[str] = []
    for line in output.splitlines():
        if line.startswith("=== "):
            lines = sections.setdefault(line[4:].split()[0], [])
        lines.append(line)
    return sections


def _report(lines: list[str]) -> dict:
    [found] = [json.loads(line) for line in lines if line.startswith("{")]
    return found


@pytest.fixture(scope="module")
def sections() -> dict[str, list[str]]:
    result = guest.run(_script(), timeout_s=1800)
    assert result.returncode == 0, result.output[-6000:]
    return _sections(result.output)


def test_doctor_says_cgroup_v2(sections: dict[str, list[str]]) -> None:
    assert "serve --limits auto would enforce limits with: cgroup-v2" in sections["doctor"], sections["doctor"]


def test_cgroup_v2_grades_every_case(sections: dict[str, list[str]]) -> None:
    report = _report(sections["cgroup"])
    assert report["limits"] == "cgroup-v2"
    assert limits_cases.problems(report) == [], report["server_log"]
    assert "a fresh group per run" in report["server_log"]         # Debian 12's 6.1 cannot reset memory.peak


def test_the_session_moved_into_a_leaf_and_the_instance_is_gone(sections: dict[str, list[str]]) -> None:
    [header, *children] = sections["groups"]
    assert header.endswith("0::/session.scope/reward-server")
    assert children == ["reward-server"]


def test_an_ordinary_user_in_a_delegated_group_gets_cgroup_v2(sections: dict[str, list[str]]) -> None:
    report = _report(sections["delegated"])
    assert report["limits"] == "cgroup-v2"
    assert "not root: every slot runs as uid" in report["server_log"]
    assert limits_cases.problems(report) == [], report["server_log"]


@pytest.mark.parametrize("mode", ["rlimit", "nobody"])
def test_the_weaker_modes_give_the_same_verdicts(sections: dict[str, list[str]], mode: str) -> None:
    report = _report(sections[mode])
    assert report["limits"] == "rlimit"
    assert limits_cases.problems(report) == [], report["server_log"]
    verdicts = {name: case["verdict"] for name, case in report["cases"].items()}
    assert verdicts == {name: case["verdict"] for name, case in _report(sections["cgroup"])["cases"].items()}
