"""Named benchmarks through the TRL helper's loaders, on small local files in the benchmarks' formats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reward_server.evaluation.benchmarks import BenchmarkError, BenchmarkOptions, load_benchmark
from trainers.data_dir import DEFAULT as DATA_DIR

SHARED = DATA_DIR


def write_jsonl(path: Path, rows: list[dict]) -> str:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return str(path)


def test_multipl_e_rows(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "humaneval-lua.jsonl", [
        {"name": "HumanEval_0_x", "language": "lua", "prompt": "local function x()\n", "tests": "assert(x())\n",
         "stop_tokens": ["\nlocal", "\nfunction"]}])
    (problem,) = load_benchmark("multipl-e", BenchmarkOptions(source=source))
    assert (problem.id, problem.language, problem.kind, problem.benchmark) == (
        "HumanEval_0_x", "lua", "function", "multipl-e")
    assert problem.prompt == "local function x()\n" and problem.stop_tokens == ("\nlocal", "\nfunction")


def test_livecodebench_rows_one_problem_per_language(tmp_path: Path) -> None:
    tests = json.dumps([{"input": "1 2\n", "output": "3\n", "testtype": "stdin"}])
    source = write_jsonl(tmp_path / "lcb.jsonl", [
        {"question_id": "abc1", "question_content": "Sum two integers.", "public_test_cases": tests,
         "private_test_cases": "[]"}])
    problems = load_benchmark("lcb-lcb", BenchmarkOptions(source=source, lcb_languages=("python", "go")))
    assert [(p.id, p.language, p.comparator, p.extraction) for p in problems] == [
        ("lcb/abc1/python", "python", "lcb", "last_block"), ("lcb/abc1/go", "go", "lcb", "last_block")]
    assert problems[0].io_tests == (("1 2\n", "3\n"),)
    assert "Sum two integers." in problems[0].chat[-1]["content"]


def test_sair_rows_with_the_shared_template() -> None:
    options = BenchmarkOptions(source=str(SHARED / "sair-stage1" / "problems_hard3_20.jsonl"),
                               sair_template=SHARED / "sair-stage1" / "example_complete_prompt.txt")
    problems = load_benchmark("sair", options)
    assert len(problems) == 20 and all(p.kind == "equation" for p in problems)
    assert problems[0].expected is True and "x = y * x" in problems[0].chat[-1]["content"]


def test_a_trainers_benchmark_needs_a_source() -> None:
    with pytest.raises(BenchmarkError, match="--benchmark-source"):
        load_benchmark("multipl-e", BenchmarkOptions())
