"""`reward-server loadtest` against real servers, and the client's load sharing and failover under it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reward_server.cli import main
from reward_server.client import RewardClient
from reward_server.loadtest.scrape import scrape, total
from reward_server.pb import reward_pb2
from tests.conftest import score_killing


def python(candidate_id: str, source: str) -> reward_pb2.Candidate:
    return reward_pb2.Candidate(id=candidate_id, code=reward_pb2.CodeTask(
        language="python", completion=source, io_tests=[reward_pb2.IOTest(stdin="", expected_stdout="ok\n")]))


def test_loadtest_report_is_plausible_and_compare_flags_regressions(
        start_replicas, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    [server] = start_replicas(1, workers=2)
    report_path = tmp_path / "report.json"
    common = ["loadtest", "--server", server.address, "--metrics", server.metrics_url, "--languages", "python=3,bash=1",
              "--equation-share", "0.2", "--batch-sizes", "2,6", "--timeout-s", "0.5"]
    assert main([*common, "--duration", "3", "--concurrency", "2", "--report", str(report_path)]) == 0
    report = json.loads(report_path.read_text())
    assert report["completed"] == report["sent"] > 0
    assert (report["lost"], report["error_batches"], report["infra"], report["unexpected"]) == (0, 0, 0, 0)
    assert report["wall_s"] >= 3 and report["throughput_cps"] == pytest.approx(report["completed"] / report["wall_s"])
    assert sum(report["verdicts"].values()) == report["completed"]
    assert set(report["latency"]["by_language"]) <= {"python", "bash", "equation"}
    assert "python" in report["latency"]["by_language"]
    latency = report["latency"]
    for stats in [latency["candidate"], latency["batch"], *latency["by_language"].values()]:
        assert 0 <= stats["p50"] <= stats["p90"] <= stats["p99"] <= stats["max"]
    assert set(report["latency"]["by_batch_size"]) <= {"2", "6"}
    (pool,) = report["servers"]
    assert pool["slots"] == 2 and pool["scrapes"] >= 2 and 0 < pool["utilisation"] <= 1
    assert pool["stage_mean_s"]["run"] > 0
    assert report["config"]["mix"]["languages"] == {"python": 3.0, "bash": 1.0}
    assert (tmp_path / "report.png").read_bytes()[:4] == b"\x89PNG"
    assert "candidates in" in capsys.readouterr().out

    # Open loop, bounded by count before the duration; compared with an impossible baseline.
    baseline = {**report, "throughput_cps": report["throughput_cps"] * 1000}
    (tmp_path / "baseline.json").write_text(json.dumps(baseline))
    second = tmp_path / "second.json"
    code = main([*common, "--batch-sizes", "2", "--duration", "30", "--count", "10", "--rate", "4",
                 "--report", str(second), "--compare", str(tmp_path / "baseline.json")])
    out = capsys.readouterr().out
    assert code == 1 and "REGRESSION throughput (candidates/s)" in out
    again = json.loads(second.read_text())
    assert (again["sent"], again["completed"], again["batches"]) == (10, 10, 5)
    assert again["config"]["limits"]["rate"] == 4


def test_two_servers_share_load_and_a_killed_one_loses_no_candidate(start_replicas, tmp_path: Path) -> None:
    a, b = start_replicas(2, workers=1)
    addresses = f"{a.address},{b.address}"

    with RewardClient(addresses) as client:
        results = client.score([python(f"q{i}", "print('ok')\n") for i in range(8)])
    assert all(r.verdict == reward_pb2.PASS for r in results)
    assert [total(scrape(s.metrics_url), "reward_candidates_total") for s in (a, b)] == [4, 4]

    # The load tester spreads its batches over both servers too.
    report_path = tmp_path / "two.json"
    assert main(["loadtest", "--server", addresses, "--metrics", f"{a.metrics_url},{b.metrics_url}",
                 "--duration", "2", "--batch-sizes", "4", "--concurrency", "2", "--report", str(report_path)]) == 0
    report = json.loads(report_path.read_text())
    assert report["completed"] == report["sent"] > 0 and report["lost"] == 0
    assert [s["scrapes"] > 0 for s in report["servers"]] == [True, True]
    counts = [total(scrape(s.metrics_url), "reward_candidates_total") for s in (a, b)]
    assert min(counts) > 4 and sum(counts) == 8 + report["sent"]

    # Kill one server while it is grading: its unfinished candidates must be graded by the other.
    slow = [python(f"s{i}", "import time\ntime.sleep(0.4)\nprint('ok')\n") for i in range(12)]
    with RewardClient(addresses) as client:
        results = score_killing(client, slow, victim=b)
    assert [r.id for r in results] == [c.id for c in slow]
    assert all(r.verdict == reward_pb2.PASS for r in results), [r.detail for r in results]
    assert total(scrape(a.metrics_url), "reward_candidates_total") > counts[0] + 6   # a took over b's share
