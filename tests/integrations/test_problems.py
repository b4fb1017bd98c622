"""`python -m integrations.problems`: a named benchmark written as our problems JSONL reads back as the very
problems eval loads, and as OpenRLHF rows each label reads back as its problem."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from benchmarks import humaneval, problem_jsonl
from tests.conftest import ROOT
from tests.language_table import load_table


def convert(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "integrations.problems", *args], cwd=ROOT, check=True, capture_output=True)


def test_a_benchmark_converts_to_problems_and_openrlhf_rows(tmp_path: Path) -> None:
    expected = humaneval.problems(load_table())
    convert("--benchmark", "humaneval", "--output", str(tmp_path / "he.jsonl"))
    assert problem_jsonl.load(tmp_path / "he.jsonl") == expected

    convert("--problems", str(tmp_path / "he.jsonl"), "--format", "openrlhf", "--output", str(tmp_path / "rl.jsonl"))
    rows = [json.loads(line) for line in (tmp_path / "rl.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [row["prompt"] for row in rows] == [problem.chat for problem in expected]
    assert [problem_jsonl.problem(json.loads(row["label"]), "other", "label") for row in rows] == expected
