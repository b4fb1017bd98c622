"""Per-test CPU seconds and peak memory (TestOutcome.cpu_s, peak_memory_mb) through a real server on loopback,
on both paths a Python run takes (zygote and spawned) and for a compiled language."""

from __future__ import annotations

from reward_server.client import RewardClient
from reward_server.pb import reward_pb2
from tests.candidates import stdio, verdict_name
from tests.toolchains import require_ready

# One program, three behaviours chosen by stdin: each test's outcome reports what its own run used.
PYTHON = """import sys, time
mode = sys.stdin.read().strip()
if mode == "alloc":
    block = bytearray(64 << 20)
    block[::4096] = b"x" * (len(block) // 4096)     # touch every page
elif mode == "busy":
    end = time.process_time() + 1.0
    while time.process_time() < end:
        pass
elif mode == "hog":
    hog = bytearray(256 << 20)
    hog[::4096] = b"x" * (len(hog) // 4096)
elif mode == "spin":
    while True:
        pass
print(mode)
"""
CPP = """#include <cstdio>
#include <cstdlib>
#include <cstring>
int main() {
    long mib;
    if (scanf("%ld", &mib) != 1) return 2;
    volatile char *block = (volatile char *)malloc(mib << 20);
    for (long i = 0; i < (mib << 20); i += 4096) block[i] = 1;
    printf("%ld\\n", mib);
}
"""
ALLOC_MIB = 64
PAGE_SLACK_MIB = 1      # the peak is less where the cgroup started: page cache freed meanwhile shifts it a few pages
MEMORY_MB = 512


def io_cases(*modes: str) -> list[tuple[str, str]]:
    return [(mode, f"{mode}\n") for mode in modes]


def measured(candidate_id: str) -> reward_pb2.Candidate:
    """Trivial, a 64 MiB allocation and a 1 s CPU-bound loop, every test reported (run_all_tests)."""
    return stdio(candidate_id, "python", PYTHON, io_cases("trivial", "alloc", "busy"), memory_mb=MEMORY_MB,
                 timeout_s=5, run_all_tests=True)


def check_measured(result: reward_pb2.ScoreResult, trivial_mib: float) -> None:
    """The three tests' fields are set and say what each run used; a trivial run stays under `trivial_mib`."""
    assert verdict_name(result) == "PASS", result
    trivial, alloc, busy = result.tests
    for test in result.tests:
        assert test.HasField("cpu_s") and test.HasField("peak_memory_mb"), test
    assert trivial.cpu_s < 0.5 and 0 < trivial.peak_memory_mb < trivial_mib, trivial
    assert ALLOC_MIB - PAGE_SLACK_MIB <= alloc.peak_memory_mb < MEMORY_MB / 2, alloc
    assert busy.peak_memory_mb < trivial_mib, busy
    assert 0.99 <= busy.cpu_s <= min(busy.elapsed_s + 0.05, 2.0), busy


def test_each_test_reports_its_cpu_seconds_and_peak_memory(path_client: RewardClient) -> None:
    [result] = path_client.score([measured("py")], timeout_s=120)
    check_measured(result, trivial_mib=16)


def test_runs_stopped_by_a_limit_still_report_what_they_used(path_client: RewardClient) -> None:
    [result] = path_client.score([stdio("limits", "python", PYTHON, io_cases("hog", "spin"), memory_mb=64,
                                        timeout_s=1, run_all_tests=True)], timeout_s=120)
    hog, spin = result.tests
    assert [reward_pb2.Verdict.Name(t.verdict) for t in result.tests] == ["MEMORY_LIMIT", "TIMEOUT"], result
    assert 0 < hog.peak_memory_mb <= 64 + 16, hog
    assert spin.cpu_s >= 0.9 and spin.peak_memory_mb < 16, spin


def test_a_compiled_program_reports_its_own_run(path_client: RewardClient) -> None:
    [cpp] = [lang for lang in path_client.languages().languages if lang.key == "cpp"]
    require_ready("cpp", cpp.ready, cpp.reason)
    [result] = path_client.score([stdio("cpp", "cpp", CPP, [("0", "0\n"), (f"{ALLOC_MIB}", f"{ALLOC_MIB}\n")],
                                        memory_mb=MEMORY_MB, run_all_tests=True)], timeout_s=120)
    assert verdict_name(result) == "PASS", result
    small, alloc = result.tests
    assert small.cpu_s < 0.5 and 0 < small.peak_memory_mb < 8, small      # the compile's memory is not the run's
    assert ALLOC_MIB - PAGE_SLACK_MIB <= alloc.peak_memory_mb < MEMORY_MB / 2, alloc

