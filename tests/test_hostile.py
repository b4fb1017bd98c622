"""Limits and hostile programs through the server: each is contained, gets its verdict, and the server serves on.

Every test runs on both paths a Python run takes: forked by its slot's zygote, and spawned (--zygote off).
"""

from __future__ import annotations

import time

import grpc
import pytest

from reward_server.client import RewardClient
from reward_server.pb import reward_pb2, reward_pb2_grpc
from tests.candidates import python_script, stdio, verdict_name


def score_one(client: RewardClient, candidate: reward_pb2.Candidate) -> reward_pb2.ScoreResult:
    [result] = client.score([candidate], timeout_s=120)
    return result


def assert_still_serving(client: RewardClient) -> None:
    result = score_one(client, python_script("alive", "print('ok')", "ok"))
    assert verdict_name(result) == "PASS", result


@pytest.mark.parametrize(("name", "code", "verdict"), [
    ("infinite loop", "while True:\n    pass\n", "TIMEOUT"),
    ("sleep forever", "import time\ntime.sleep(10**6)\n", "TIMEOUT"),
    ("blocked on stdin-less read", "import sys\nimport time\nsys.stdin.read()\ntime.sleep(10**6)\n", "TIMEOUT"),
    ("memory bomb", "x = b'a' * (4 << 30)\n", "MEMORY_LIMIT"),
    ("growing memory", "x = []\nwhile True:\n    x.append(b'a' * (1 << 20))\n", "MEMORY_LIMIT"),
    ("output flood", "while True:\n    print('x' * 1000)\n", "OUTPUT_LIMIT"),
    ("stderr flood", "import sys\nwhile True:\n    sys.stderr.write('x' * 1000)\n", "OUTPUT_LIMIT"),
    ("huge file", "with open('big', 'wb') as f:\n    while True:\n        f.write(b'a' * (1 << 20))\n", "OUTPUT_LIMIT"),
    ("crash", "raise ValueError('boom')\n", "RUNTIME_ERROR"),
    ("exit code", "import sys\nsys.exit(3)\n", "RUNTIME_ERROR"),
    ("self kill", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n", "RUNTIME_ERROR"),
])
def test_limit_verdicts(path_client: RewardClient, name: str, code: str, verdict: str) -> None:
    # generous time: a memory hog must be stopped by the memory limit, not by the clock on a busy machine
    timeout_s = 2 if verdict == "TIMEOUT" else 20
    result = score_one(path_client, python_script(name, code, "", timeout_s=timeout_s, memory_mb=256))
    assert verdict_name(result) == verdict, result
    assert result.reward == 0.0


def test_fork_bomb_is_contained(path_client: RewardClient) -> None:
    bomb = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    result = score_one(path_client, python_script("bomb", bomb, "", timeout_s=3))
    assert verdict_name(result) in {"TIMEOUT", "RUNTIME_ERROR"}, result
    assert result.reward == 0.0
    assert_still_serving(path_client)


def test_shell_fork_bomb_is_contained(path_client: RewardClient) -> None:
    bomb = ":(){ :|:& };:\nwait\necho survived\n"
    [result] = path_client.score([stdio("bomb", "bash", bomb, [("", "survived")], timeout_s=5)], timeout_s=120)
    # the bomb is starved of processes: the script goes on (PASS) or is stopped (TIMEOUT), never infra
    assert verdict_name(result) in {"PASS", "TIMEOUT", "RUNTIME_ERROR"}, result
    assert_still_serving(path_client)


PROBES = {
    "network": (
        "import socket\n"
        "for host in [('1.1.1.1', 53), ('127.0.0.1', 22), ('deb.debian.org', 80)]:\n"
        "    try:\n        socket.create_connection(host, timeout=2)\n        print('connected', host)\n"
        "    except OSError:\n        pass\n"
        "print('isolated')\n", "isolated"),
    "write outside workdir": (
        "import os\nescaped = []\n"
        "for path in ['/etc/pwned', '/usr/pwned', '/root/pwned', '/pwned', '/home/pwned', '/var/pwned',\n"
        "             '../pwned', '/proc/sys/kernel/pwned']:\n"
        "    try:\n        open(path, 'w').write('x')\n        escaped.append(path)\n"
        "    except OSError:\n        pass\n"
        "print(escaped)\n", "[]"),
    "host secrets hidden": (
        "import os\n"
        "seen = [p for p in ['/root', '/work', '/home', '/var/lib/docker', '/etc/shadow'] if os.path.exists(p)\n"
        "        and (os.path.isfile(p) or os.listdir(p))]\n"
        "readable = []\n"
        "for p in seen:\n    try:\n        open(p).read() if os.path.isfile(p) else os.listdir(p)\n"
        "        readable.append(p)\n    except OSError:\n        pass\n"
        "print(readable)\n", "[]"),
    "workdir writable": (
        "open('scratch.txt', 'w').write('hi')\nopen('/tmp/scratch', 'w').write('hi')\n"
        "print(open('scratch.txt').read(), open('/tmp/scratch').read())\n", "hi hi"),
    "not root": ("import os\nprint(os.getuid() != 0 and os.geteuid() != 0)\n", "True"),
}


@pytest.mark.parametrize("name", sorted(PROBES))
def test_containment_probes(path_client: RewardClient, name: str) -> None:
    code, expected = PROBES[name]
    result = score_one(path_client, python_script(name, code, expected, timeout_s=10))
    assert verdict_name(result) == "PASS", result


def test_runs_cannot_read_each_others_files(path_client: RewardClient) -> None:
    token = f"secret-{time.time_ns()}"
    writer = (f"import time\nopen('{token}', 'w').write('x')\nopen('/tmp/{token}', 'w').write('x')\n"
              "time.sleep(3)\nprint('wrote')\n")
    finder = (f"import os, time\ntime.sleep(1)\nfound = []\n"
              "for top in ['/', '/tmp', '/sandbox', '/work', '..', '../..']:\n"
              "    for root, dirs, files in os.walk(top):\n"
              "        dirs[:] = [d for d in dirs if d not in ('proc', 'sys', 'dev', 'usr')]\n"
              f"        found += [os.path.join(root, f) for f in files if f == '{token}']\n"
              "print(len(found))\n")
    writer_result, finder_result = path_client.score([
        python_script("writer", writer, "wrote", timeout_s=10),
        python_script("finder", finder, "0", timeout_s=10)], timeout_s=120)
    assert verdict_name(writer_result) == "PASS", writer_result
    assert verdict_name(finder_result) == "PASS", finder_result
    # and nothing of a run survives it: a later run does not see the previous one's files either
    looks = f"import os\nprint(os.path.exists('/tmp/{token}'))\n"
    later = score_one(path_client, python_script("later", looks, "False"))
    assert verdict_name(later) == "PASS", later


def test_deadline_becomes_infra_deadline(path_server_address: str) -> None:
    """A run that computes within its limits when the deadline cuts it (a sleeper keeps its TIMEOUT: test_deadlines)."""
    with grpc.insecure_channel(path_server_address) as channel:
        stub = reward_pb2_grpc.RewardServiceStub(channel)
        request = reward_pb2.ScoreRequest(candidates=[
            python_script("slow", "x = 0\nwhile True:\n    x += 1\n", "", timeout_s=60),
            python_script("fast", "print(1)", "1")])
        started = time.monotonic()
        reply = stub.Score(request, timeout=3)
        elapsed = time.monotonic() - started
    slow, fast = reply.results
    assert verdict_name(slow) == "INFRA_DEADLINE", slow
    assert not slow.HasField("reward")
    assert verdict_name(fast) == "PASS", fast
    assert elapsed < 30  # answered at the deadline, not after the program's own limit


def test_bad_candidate_never_sinks_its_batch(path_client: RewardClient) -> None:
    results = path_client.score([
        python_script("bomb", "x = b'a' * (4 << 30)\n", "", memory_mb=128),
        stdio("unknown", "cobol", "x", [("", "")]),
        python_script("good", "print(42)", "42"),
        python_script("loop", "while True: pass", "", timeout_s=1),
    ], timeout_s=120)
    assert [verdict_name(r) for r in results] == ["MEMORY_LIMIT", "INFRA_UNKNOWN_LANGUAGE", "PASS", "TIMEOUT"]


def test_many_files_left_behind_are_cleaned_up(path_client: RewardClient) -> None:
    spray = ("import os\nfor i in range(200000):\n    try:\n        open(f'f{i}', 'w').close()\n"
             "    except OSError:\n        break\nprint('done')\n")
    result = score_one(path_client, python_script("spray", spray, "done", timeout_s=30))
    assert verdict_name(result) in {"PASS", "TIMEOUT"}, result
    assert_still_serving(path_client)
