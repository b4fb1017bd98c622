"""The limits contract every `serve --limits` mode keeps: one set of programs, the verdict each must get, and what
each run must report it used. Run through a real server on loopback, here (tests/test_limits_modes.py) and on a real
cgroup v2 kernel in a VM (tests/vm/test_cgroup_v2.py), where it runs as a script:

    python -m tests.limits_cases [--scale N] -- SERVE_ARGS...

prints one JSON object: the server's `limits` mode (from its metrics) and, per case, its verdict, CPU seconds and peak
MiB. `--scale` multiplies every time limit (an emulated CPU is slower; CPU time is what the limits count, so only the
scale moves).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import pathlib
import sys

from reward_server.client import RewardClient
from reward_server.loadtest.scrape import scrape
from reward_server.pb import reward_pb2
from tests import nobody
from tests.candidates import function_style, stdio, verdict_name

ECHO = {"python": "print(input())\n", "cpp": "#include <iostream>\n#include <string>\nint main() { std::string s; "
        "std::cin >> s; std::cout << s << std::endl; }\n", "bash": "read line\necho \"$line\"\n"}
WRONG = {"python": "print('no')\n", "cpp": "#include <cstdio>\nint main() { puts(\"no\"); }\n", "bash": "echo no\n"}
PYTHON_BOMB = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
SPIN = "while True:\n    pass\n"
HOG = "x = []\nwhile True:\n    x.append(bytearray(1 << 20))\n    x[-1][::4096] = b'x' * 256\n"
FLOOD = "while True:\n    print('x' * 1000)\n"
BUSY = "import time\nend = time.process_time() + 1.0\nwhile time.process_time() < end:\n    pass\nprint('busy')\n"
ALLOC = "block = bytearray(64 << 20)\nblock[::4096] = b'x' * (len(block) // 4096)\nprint('alloc')\n"
# Three children spend nine tenths of the budget each, report, then outlive the program: the run's CPU time counts
# them all, however the run ends (the $BUDGET placeholder is the case's scaled CPU-time limit).
BACKGROUND = """import os, time
r, w = os.pipe()
for _ in range(3):
    if os.fork() == 0:
        end = time.process_time() + 0.9 * $BUDGET
        while time.process_time() < end:
            pass
        os.write(w, b"x")
        time.sleep(10 ** 6)
for _ in range(3):
    os.read(r, 1)
print("hi")
"""
# The tests in a process of their own (docs/guards.md, "Two processes"): pair's confinement on this kernel's Landlock
SPLIT_PROMPT = "def add(x, y):\n"
SPLIT_TESTS = "assert add(2, 3) == 5\nassert add(-1, 1) == 0\n"
MEMORY_MB = 256
LOG_KEPT = 8000     # characters of the server's log a report keeps: its start (what it chose) and its end


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    language: str
    code: str
    expected: str                # the verdict's name; "A|B": either
    stdin: str = "hi"
    stdout: str = "hi"
    timeout_s: float = 5.0
    memory_mb: int = MEMORY_MB
    min_cpu_s: float = 0.0       # the run's reported CPU seconds at least this much
    min_peak_mb: float = 0.0     # the run's reported peak memory at least this much
    tests: str = ""              # function style: `code` is the completion of SPLIT_PROMPT, these its tests


CASES = (
    *(Case(f"{language} right", language, code, "PASS") for language, code in ECHO.items()),
    *(Case(f"{language} wrong", language, code, "WRONG_ANSWER") for language, code in WRONG.items()),
    Case("cpu-time limit", "python", SPIN, "TIMEOUT", timeout_s=1.0, min_cpu_s=0.9),
    Case("memory limit", "python", HOG, "MEMORY_LIMIT", timeout_s=20.0),
    # its processes' copied pages stay far under its memory limit: the process limit and the clock end it
    Case("fork bomb", "python", PYTHON_BOMB, "TIMEOUT", timeout_s=3.0, memory_mb=1024),
    Case("output flood", "python", FLOOD, "OUTPUT_LIMIT", timeout_s=20.0),
    Case("cpu of what outlives the program", "python", BACKGROUND, "TIMEOUT", timeout_s=1.0),
    Case("cpu measured", "python", BUSY, "PASS", stdout="busy", min_cpu_s=1.0),
    Case("peak measured", "python", ALLOC, "PASS", stdout="alloc", min_peak_mb=64.0),
    Case("split right", "python", "    return x + y\n", "PASS", tests=SPLIT_TESTS),
    Case("split wrong", "python", "    return x - y\n", "RUNTIME_ERROR", tests=SPLIT_TESTS),
    Case("split spins during a call", "python", "    while True:\n        pass\n", "TIMEOUT", timeout_s=1.0,
         tests=SPLIT_TESTS),
    # each would pass if what it reaches for were within its reach
    Case("split reads its tests", "python", "    open('../t/main.py').read()\n    return x + y\n", "RUNTIME_ERROR",
         tests=SPLIT_TESTS),
    Case("split starts a child", "python", "    import os\n    if os.fork() == 0:\n        os._exit(0)\n"
         "    return x + y\n", "RUNTIME_ERROR", tests=SPLIT_TESTS),
    Case("still serving", "python", ECHO["python"], "PASS"),
)


def candidate(case: Case, scale: float) -> reward_pb2.Candidate:
    timeout_s = case.timeout_s * scale
    if case.tests:
        return function_style(case.name, case.language, SPLIT_PROMPT, case.code, case.tests, timeout_s=timeout_s,
                              memory_mb=case.memory_mb, run_all_tests=True)
    return stdio(case.name, case.language, case.code.replace("$BUDGET", repr(timeout_s)), [(case.stdin, case.stdout)],
                 timeout_s=timeout_s,
                 memory_mb=case.memory_mb, run_all_tests=True)


def score(client: RewardClient, scale: float = 1.0) -> dict[str, dict]:
    """Every case, one at a time (the bomb and the flood must not share the machine with a measured run)."""
    results = {}
    for case in CASES:
        [result] = client.score([candidate(case, scale)], timeout_s=600)
        [outcome] = result.tests
        results[case.name] = {"verdict": verdict_name(result), "detail": result.detail,
                              "cpu_s": outcome.cpu_s if outcome.HasField("cpu_s") else None,
                              "peak_mb": outcome.peak_memory_mb if outcome.HasField("peak_memory_mb") else None}
    return results


def limits_mode(metrics_url: str) -> str:
    """The mode a server's metrics report (ListLanguages says the same, but probes every toolchain first: minutes on
    an emulated CPU)."""
    [mode] = [dict(labels)["mode"] for (name, labels), value in scrape(metrics_url).items()
              if name == "reward_sandbox_limits" and value == 1]
    return mode


def problems(report: dict) -> list[str]:
    """What in a report breaks the contract (empty: none)."""
    found = []
    for case in CASES:
        got = report["cases"][case.name]
        if got["verdict"] not in case.expected.split("|"):
            found.append(f"{case.name}: {got['verdict']} ({got['detail']}), expected {case.expected}")
        if case.min_cpu_s and not (got["cpu_s"] or 0) >= case.min_cpu_s:
            found.append(f"{case.name}: {got['cpu_s']} CPU seconds reported, expected at least {case.min_cpu_s}")
        if case.min_peak_mb and not (got["peak_mb"] or 0) >= case.min_peak_mb:
            found.append(f"{case.name}: {got['peak_mb']} MiB peak reported, expected at least {case.min_peak_mb}")
    return found


def as_nobody(repo: pathlib.Path, view: pathlib.Path, *args: str) -> list[str]:
    """The argv (to run as root) that runs `python -m tests.limits_cases ARGS...` as `nobody` (tests/nobody.py)."""
    return nobody.as_nobody(repo, view, "-m", "tests.limits_cases", *args)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("serve_args", nargs="*")
    args = parser.parse_args()
    from tests.conftest import ServerHandle  # the same real server the suite starts

    server = ServerHandle("--metrics-port", "0", *args.serve_args)
    try:
        with RewardClient(server.address) as client:
            report = {"cases": score(client, args.scale), "limits": limits_mode(server.metrics_url)}
    finally:
        server.stop()
    log = server.stderr_text()
    report["server_log"] = log if len(log) <= LOG_KEPT else f"{log[:LOG_KEPT // 2]}\n...\n{log[-LOG_KEPT // 2:]}"
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
