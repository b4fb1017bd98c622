"""Eval summary math: pass@k per problem then averaged, per group, with infra results excluded."""

from __future__ import annotations

from pathlib import Path

import pytest

from reward_server.evaluation.chart import write_chart
from reward_server.evaluation.results import ResultRecord
from reward_server.evaluation.summary import format_table, summarize


def record(problem_id: str, sample: int, verdict: str, benchmark: str, language: str) -> ResultRecord:
    return ResultRecord(id=f"{problem_id}/{sample}", problem_id=problem_id, benchmark=benchmark, language=language,
                        sample=sample, verdict=verdict, reward=None, detail="", elapsed_s=0.0, sandbox="",
                        completion="")


def records() -> list[ResultRecord]:
    # p1 (python): 4 scored, 2 pass, plus one infra that must not count as a sample
    p1 = [record("p1", i, v, "he", "python") for i, v in
          enumerate(["PASS", "WRONG_ANSWER", "PASS", "RUNTIME_ERROR", "INFRA_SANDBOX_ERROR"])]
    # p2 (python): 4 scored, none pass
    p2 = [record("p2", i, v, "he", "python") for i, v in enumerate(["TIMEOUT", "WRONG_ANSWER", "NO_CODE",
                                                                      "COMPILE_ERROR"])]
    # p3 (lua, other benchmark): 1 scored, passes; too few samples for pass@2
    p3 = [record("p3", 0, "PASS", "mx", "lua"), record("p3", 1, "INFRA_DEADLINE", "mx", "lua")]
    return p1 + p2 + p3


def test_summary_matches_hand_computed_values() -> None:
    summary = summarize(records(), [1, 2])
    overall = summary["overall"]
    # pass@1 = mean(2/4, 0/4, 1/1); pass@2 over p1, p2 only = mean(1 - C(2,2)/C(4,2), 0) = (5/6) / 2
    assert overall["pass_at_k"]["1"] == pytest.approx((0.5 + 0.0 + 1.0) / 3)
    assert overall["pass_at_k"]["2"] == pytest.approx(5 / 12)
    assert overall["problems_at_k"] == {"1": 3, "2": 2}
    assert (overall["problems"], overall["completions"], overall["scored"], overall["infra"]) == (3, 11, 9, 2)
    assert overall["verdicts"]["PASS"] == 3 and overall["verdicts"]["INFRA_DEADLINE"] == 1

    python = summary["by_language"]["python"]
    assert python["pass_at_k"] == {"1": pytest.approx(0.25), "2": pytest.approx(5 / 12)}
    lua = summary["by_language"]["lua"]
    assert lua["pass_at_k"] == {"1": 1.0, "2": None} and lua["infra"] == 1
    assert summary["by_benchmark"]["mx"]["problems"] == 1
    assert set(summary["by_benchmark"]) == {"he", "mx"}


def test_table_and_chart(tmp_path: Path) -> None:
    summary = summarize(records(), [1, 2])
    table = format_table(summary)
    assert "pass@2" in table.splitlines()[0]
    overall = next(line for line in table.splitlines() if line.startswith("overall"))
    assert overall.split()[-2:] == [f"{(1.5 / 3):.4f}", f"{5 / 12:.4f}"]
    assert next(line for line in table.splitlines() if line.startswith("language lua")).split()[-1] == "-"
    write_chart(summary, tmp_path / "passk.png")
    assert (tmp_path / "passk.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
