"""Each `serve --limits` mode this kernel offers, through a real server: the same verdicts for the same programs
(tests/limits_cases.py), the mode told to clients and to metrics, and the choice `auto` makes where no cgroup is
visible at all (a container without cgroups, made here with a private mount namespace). The cgroup v2 mode runs on a
real v2 kernel in tests/vm/test_cgroup_v2.py."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import tempfile
from collections.abc import Iterator

import pytest

from reward_server.client import RewardClient
from reward_server.loadtest.scrape import scrape
from sandboxes.backends.process.host import would_choose
from tests import limits_cases
from tests.conftest import ROOT, ServerHandle

CGROUP_MODE, _ = would_choose("cgroup")
# A server that sees no cgroup filesystem at all: an empty tmpfs over /sys/fs/cgroup in its own mount namespace.
NO_CGROUPS = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
              'mount -t tmpfs none /sys/fs/cgroup && exec "$@"', "sh"]


@pytest.fixture(scope="module", params=[(mode, path) for mode in ("rlimit", "cgroup") for path in ("zygote", "spawn")],
                ids=lambda param: "-".join(param))
def report(request: pytest.FixtureRequest) -> Iterator[dict]:
    mode, path = request.param
    if mode == "cgroup" and CGROUP_MODE is None:
        pytest.skip("no writable cgroups on this host")
    server = ServerHandle("--limits", mode, "--zygote", "on" if path == "zygote" else "off", "--metrics-port", "0")
    try:
        with RewardClient(server.address) as client:
            found = {"cases": limits_cases.score(client), "limits": client.languages().limits}
        found["metrics"] = scrape(server.metrics_url)
    finally:
        server.stop()
    found["asked"] = mode
    yield found


def test_every_case_gets_its_verdict_and_measures(report: dict) -> None:
    assert limits_cases.problems(report) == []


def test_the_mode_is_told_to_clients_and_metrics(report: dict) -> None:
    expected = "rlimit" if report["asked"] == "rlimit" else CGROUP_MODE
    assert report["limits"] == expected
    assert report["metrics"][("reward_sandbox_limits", (("mode", expected),))] == 1


def test_auto_takes_the_strongest_mode_here() -> None:
    server = ServerHandle()
    try:
        with RewardClient(server.address) as client:
            reply = client.languages()
    finally:
        server.stop()
    assert reply.limits == (CGROUP_MODE or "rlimit")
    assert (reply.limits == "rlimit") == bool(reply.weaker_limits)


def _serve_without_cgroups(*args: str) -> subprocess.Popen:
    return subprocess.Popen([*NO_CGROUPS, sys.executable, "-m", "reward_server", "serve", "--port", "0", *args],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_without_cgroups_cgroup_refuses_to_start_and_says_why() -> None:
    server = _serve_without_cgroups("--limits", "cgroup")
    out, err = server.communicate(timeout=120)
    assert server.returncode != 0 and "listening on" not in out
    assert "no writable cgroups" in err and "cgroup-v2:" in err and "Delegate=yes" in err, err[-2000:]


def test_without_cgroups_auto_falls_back_to_rlimits_loudly_and_grades() -> None:
    server = _serve_without_cgroups()
    try:
        line = server.stdout.readline()
        assert "listening on" in line, server.stderr.read()[-2000:] if server.poll() is not None else line
        with RewardClient(line.rsplit(" ", 1)[-1].strip()) as client:
            reply = client.languages()
            [result] = client.score([limits_cases.candidate(limits_cases.CASES[0], 1.0)], timeout_s=120)
    finally:
        server.terminate()
        _, err = server.communicate(timeout=120)
    assert reply.limits == "rlimit" and reply.weaker_limits
    assert limits_cases.verdict_name(result) == "PASS", result
    assert "WEAKER than cgroups" in err


def test_without_root_every_case_keeps_its_verdict() -> None:
    """As `nobody`, where the kernel allows unprivileged user namespaces: rlimits here, the server's uid for every
    slot, the workspaces in plain directories."""
    with tempfile.TemporaryDirectory() as view:     # in $TMPDIR itself: nobody may enter it
        os.chmod(view, 0o755)
        done = subprocess.run(limits_cases.as_nobody(ROOT, pathlib.Path(view), "--", "--limits", "auto"),
                              capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert "not root: every slot runs as uid" in report["server_log"]
    assert report["limits"] == "rlimit"      # nobody may write no cgroup here
    assert limits_cases.problems(report) == []
