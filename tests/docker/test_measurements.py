"""Per-test CPU seconds and peak memory through a real `serve --backend docker`: the runner's wait4 rusage (peak
memory: the largest process's resident set, never below the runner's forked copy) and the container's CPU counter."""

from __future__ import annotations

from reward_server.client import RewardClient
from tests.test_run_measurements import check_measured, measured

# ru_maxrss counts the resident pages of the runner's fork the program was exec'd from (about 13 MiB)
TRIVIAL_MIB = 32


def test_docker_runs_report_cpu_seconds_and_peak_memory(monkeypatch, engine, lock_path, start_server) -> None:
    monkeypatch.setenv("DOCKER_HOST", engine.url)
    monkeypatch.setenv("REWARD_SANDBOX_LOCK", str(lock_path))
    server = start_server("--backend", "docker", "--workers", "1")
    with RewardClient(server.address) as client:
        [result] = client.score([measured("py")], timeout_s=300)
    check_measured(result, trivial_mib=TRIVIAL_MIB)
