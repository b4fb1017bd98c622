"""Named benchmarks through the problem layer's loaders, on small local files in the benchmarks' formats."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from benchmarks.data_dir import DEFAULT as DATA_DIR
from reward_server.evaluation.benchmarks import BenchmarkError, BenchmarkOptions, load_benchmark

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
    assert problem.code_prompt == "local function x()\n" and problem.stop_tokens == ("\nlocal", "\nfunction")


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


def test_local_files_need_no_datasets_and_the_hub_names_its_extra(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "datasets", None)   # as without the [train] extra: importing it fails
    tests = json.dumps([{"input": "1 2\n", "output": "3\n", "testtype": "stdin"}])
    source = write_jsonl(tmp_path / "lcb.jsonl", [{"question_id": "q", "question_content": "Sum.",
                                                   "public_test_cases": tests}])
    (problem,) = load_benchmark("lcb-multilcb", BenchmarkOptions(source=source))
    assert (problem.id, problem.comparator) == ("lcb/q/python", "lenient")
    with pytest.raises(BenchmarkError, match=r"\[train\] extra"):
        load_benchmark("lcb-multilcb", BenchmarkOptions(source="livecodebench/code_generation_lite:release_v6"))
