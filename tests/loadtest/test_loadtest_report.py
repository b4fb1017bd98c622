"""Load-test report math and workload mixes, without a server."""

from __future__ import annotations

import collections

import pytest

from reward_server.loadtest.driver import BatchSample, CandidateSample, RunLog
from reward_server.loadtest.report import build_report, compare, format_table, latency_stats, percentile
from reward_server.loadtest.workload import OUTCOMES, Mix, Workload, WorkloadError, parse_weights
from reward_server.pb import reward_pb2


def test_percentile_interpolates_between_ranks() -> None:
    values = [4.0, 1.0, 3.0, 2.0, 5.0]
    assert percentile(values, 50) == 3.0
    assert percentile(values, 90) == pytest.approx(4.6)    # rank 3.6 between 4 and 5
    assert percentile(values, 0) == 1.0 and percentile(values, 100) == 5.0
    assert percentile([7.0], 99) == 7.0
    with pytest.raises(ValueError):
        percentile([], 50)


def test_latency_stats() -> None:
    assert latency_stats([]) == {"count": 0}
    stats = latency_stats([1.0, 2.0, 3.0, 4.0])
    assert stats["count"] == 4 and stats["max"] == 4.0 and stats["mean"] == 2.5
    assert stats["p50"] == 2.5 and stats["p99"] == pytest.approx(3.97)


def run_log() -> RunLog:
    candidates = [CandidateSample("python", 0.5, 0.4, "PASS", "PASS"),
                  CandidateSample("python", 1.5, 1.4, "TIMEOUT", "TIMEOUT"),
                  CandidateSample("cpp", 1.6, 1.0, "PASS", "WRONG_ANSWER"),
                  CandidateSample("equation", 0.1, 0.01, "INFRA_OVERLOADED", "PASS")]
    batches = [BatchSample(0.0, 1.5, 2, 2), BatchSample(0.5, 1.1, 2, 2),
               BatchSample(1.0, 0.2, 3, 0, "ServerUnavailable")]
    return RunLog(candidates, batches, wall_s=2.0)


def test_report_counts_and_groups() -> None:
    report = build_report(run_log(), config={"x": 1}, servers=[])
    assert (report["sent"], report["completed"], report["lost"], report["error_batches"]) == (7, 4, 3, 1)
    assert report["throughput_cps"] == 2.0
    assert report["unexpected"] == 2 and report["unexpected_by_language"] == {"cpp": 1, "equation": 1, "python": 0}
    assert report["infra"] == 1
    assert report["verdicts"] == {"INFRA_OVERLOADED": 1, "PASS": 2, "TIMEOUT": 1}
    assert report["latency"]["by_language"]["python"]["p50"] == pytest.approx(0.9)
    assert report["latency"]["batch"]["count"] == 2       # the failed batch has no latency
    assert report["latency"]["by_batch_size"] == {"2": latency_stats([1.5, 1.1])}
    assert report["timeline"]["throughput"] == [2.0, 2.0]  # two finished in [0,1), two in [1,2)
    table = format_table(report)
    assert "4 candidates in 2.0s = 2.0/s" in table and "error: ServerUnavailable" in table
    assert any(line.startswith("lang python") and line.split()[2:4] == ["2", "900"] for line in table.splitlines())


def test_compare_flags_only_what_got_worse() -> None:
    baseline = build_report(run_log(), config={}, servers=[])
    assert compare(baseline, baseline) == []
    slower = build_report(RunLog([CandidateSample(c.language, c.finished_s, c.latency_s * 2, c.verdict, c.expected)
                                  for c in run_log().candidates], run_log().batches, wall_s=4.0),
                          config={}, servers=[])
    flagged = {r.what for r in compare(slower, baseline)}
    assert "throughput (candidates/s)" in flagged
    assert "all candidates latency p50 (s)" in flagged and "language python latency p99 (s)" in flagged
    assert not any(what in flagged for what in ("error_batches", "lost", "unexpected"))
    assert compare(slower, baseline, tolerance=1.5) == []   # within a 150% allowance


def languages(*ready: str) -> reward_pb2.ListLanguagesResponse:
    return reward_pb2.ListLanguagesResponse(languages=[
        reward_pb2.Language(key="python", aliases=["py"], ready="python" in ready),
        reward_pb2.Language(key="cpp", aliases=["c++"], ready="cpp" in ready, reason="g++ missing"),
        reward_pb2.Language(key="cobol", ready=True),
    ])


def test_workload_follows_the_mix_and_is_reproducible() -> None:
    mix = Mix(languages={"py": 1.0}, outcomes={"pass": 0.5, "fail": 0.25, "timeout": 0.25}, equation_share=0.2,
              batch_sizes=(5, 7), timeout_s=0.5)
    draw = Workload(mix, languages("python"), seed=3)
    batches = [draw.batch() for _ in range(200)]
    assert {len(b) for b in batches} == {5, 7}
    planned = [p for b in batches for p in b]
    assert len({p.candidate.id for p in planned}) == len(planned)
    kinds = collections.Counter(p.language for p in planned)
    assert set(kinds) == {"python", "equation"}
    assert 0.15 < kinds["equation"] / len(planned) < 0.25
    code = [p for p in planned if p.language == "python"]
    expected = collections.Counter(p.expected for p in code)
    assert 0.45 < expected["PASS"] / len(code) < 0.55 and 0.2 < expected["TIMEOUT"] / len(code) < 0.3
    assert set(expected) == {"PASS", "TIMEOUT", "WRONG_ANSWER", "RUNTIME_ERROR"}
    assert all(p.candidate.code.timeout_s == 0.5 for p in code if p.expected == "TIMEOUT")
    assert all(p.candidate.code.language == "python" for p in code)
    again = Workload(mix, languages("python"), seed=3)
    assert [p.candidate for p in again.batch()] == [p.candidate for p in batches[0]]


@pytest.mark.parametrize(("mix_languages", "message"), [
    ({"cpp": 1.0}, "not ready on the server: g\\+\\+ missing"),
    ({"fortran": 1.0}, "'fortran' is not ready"),
    ({"cobol": 1.0}, "no load-test programs for cobol"),
])
def test_workload_refuses_languages_it_cannot_run(mix_languages: dict, message: str) -> None:
    with pytest.raises(WorkloadError, match=message):
        Workload(Mix(languages=mix_languages), languages("python"))


def test_parse_weights() -> None:
    assert parse_weights("python=3, cpp") == {"python": 3.0, "cpp": 1.0}
    assert parse_weights("pass=1,timeout=0", allowed=OUTCOMES) == {"pass": 1.0, "timeout": 0.0}
    for bad in ("python=x", "", "a=-1", "a=0"):
        with pytest.raises(WorkloadError):
            parse_weights(bad)
    with pytest.raises(WorkloadError, match="not one of"):
        parse_weights("pass=1,flaky=1", allowed=OUTCOMES)
