"""The cgroup v2 guest itself (guest.py), booted for real: two boots, so every check of what the backend's
tests rely on (the hierarchy, user namespaces, loopback, Python, output and status coming back whole) shares the
first."""

from __future__ import annotations

import os
import shutil

import pytest

from tests.vm import guest

UNAVAILABLE = guest.available()
pytestmark = pytest.mark.skipif(UNAVAILABLE is not None, reason=f"no VM here: {UNAVAILABLE}")

NOBODY = "setpriv --reuid=65534 --regid=65534 --clear-groups"
LONG = 100_000  # one line longer than a 64 KiB pipe buffer
FACTS = rf"""
echo "cwd=$(pwd)"
echo "controllers=$(cat /sys/fs/cgroup/cgroup.controllers)"
echo "cgroup=$(tr '\n' ';' </proc/self/cgroup)"
echo "v1 mounts=$(grep -c ' cgroup ' /proc/mounts)"
echo "userns=$(cat /proc/sys/kernel/unprivileged_userns_clone) $(cat /proc/sys/user/max_user_namespaces)"
echo "nobody=$({NOBODY} id -u)"
echo "nobody's namespace=$({NOBODY} unshare -Ur id -u)"
echo "python=$(/usr/bin/python3 -c 'import socket; socket.create_server(("127.0.0.1", 0)); print("listens")')"
"""
BWRAP = f'echo "bwrap=$({NOBODY} bwrap --unshare-all --ro-bind / / --dev /dev --proc /proc -- id -u)"\n'
TAIL = f"head -c {LONG} /dev/zero | tr '\\0' x; echo; echo to stderr >&2\n"


def test_guest_is_a_cgroup_v2_host_whose_output_and_status_come_back() -> None:
    has_bwrap = shutil.which("bwrap") is not None   # the guest's root is this host's
    result = guest.run(FACTS + (BWRAP if has_bwrap else "") + TAIL)
    tail = "x" * LONG + "\nto stderr\n"
    assert result.returncode == 0, result.output[-2000:]
    assert result.output.endswith(tail), result.output[-2000:]
    # name=value per line; a line of some error message becomes a name of its own, shown by the comparison
    facts = dict(line.partition("=")[::2] for line in result.output.removesuffix(tail).splitlines())
    assert facts.pop("cwd") == os.getcwd()
    assert {"cpu", "memory", "pids"} <= set(facts.pop("controllers").split())
    clone, max_namespaces = facts.pop("userns").split()
    assert clone == "1" and int(max_namespaces) > 0
    assert facts == {"cgroup": "0::/;", "v1 mounts": "0", "nobody": "65534", "nobody's namespace": "0",
                     "python": "listens", **({"bwrap": "65534"} if has_bwrap else {})}


def test_exit_status_comes_back() -> None:
    result = guest.run("echo before; exit 3")
    assert (result.returncode, result.output) == (3, "before\n")
