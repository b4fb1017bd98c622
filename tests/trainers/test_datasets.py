"""One Problem -> Candidate mapping: dataset rows turn back into their Problems, and training sends exactly the
Candidates eval sends for the same benchmark files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import equational, humaneval, livecodebench, multipl_e, problem_jsonl, sair
from benchmarks.data_dir import DEFAULT as DATA_DIR
from benchmarks.problem import Problem
from benchmarks.rows import read_rows
from reward_server.evaluation.benchmarks import BenchmarkOptions, load_benchmark
from tests.language_table import load_table
from trainers import benchmarks
from trainers.datasets import COLUMNS, from_row, to_dataset, to_row
from trainers.rewards import code_reward, equation_reward

TABLE = load_table()
SAIR_JSONL = DATA_DIR / "sair-stage1" / "problems_hard3_20.jsonl"
SAIR_TEMPLATE = (DATA_DIR / "sair-stage1" / "example_complete_prompt.txt").read_text(encoding="utf-8")
MULTIPL_E_ROW = {"name": "HumanEval_53_add", "language": "lua", "prompt": "local function add(x, y)\n",
                 "tests": "assert(add(2, 3) == 5)\n", "stop_tokens": ["\nlocal", "\nfunction"]}
LCB_ROW = {"question_id": "abc1", "question_content": "Sum two integers.",
           "public_test_cases": json.dumps([{"input": "1 2\n", "output": "3\n", "testtype": "stdin"}]),
           "private_test_cases": [{"input": "5 5\n", "output": "10\n", "testtype": "stdin"}]}
LCB_LANGUAGES = ("python", "c++", "lua", "klingon")


def write_jsonl(path: Path, rows: list[dict]) -> str:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return str(path)


def every_kind_of_problem(tmp_path: Path) -> list[Problem]:
    own = [{"id": "add", "language": "python", "prompt": "def add(a, b):\n", "tests": "assert add(2, 3) == 5\n",
            "stop_tokens": ["\ndef"], "timeout_s": 2.5},
           {"id": "sum", "language": "cpp", "prompt": "Sum.", "comparator": "lenient", "extraction": "first_block",
            "io_tests": [{"stdin": "1 2\n", "expected_stdout": "3\n"}]},
           {"id": "eq", "prompt": "Does it hold?", "expected": False}]
    return [*problem_jsonl.load(Path(write_jsonl(tmp_path / "own.jsonl", own))),
            *multipl_e.problems([MULTIPL_E_ROW], TABLE),
            *[p for style in livecodebench.STYLES
              for p in livecodebench.problems([LCB_ROW], languages=LCB_LANGUAGES, table=TABLE, style=style)],
            *humaneval.problems(TABLE)[:3],
            *sair.problems(list(read_rows(str(SAIR_JSONL)))[:3], SAIR_TEMPLATE),
            *equational.problems(equational.sample_problems(DATA_DIR, 4, seed=1), SAIR_TEMPLATE)]


def test_a_dataset_row_turns_back_into_its_problem(tmp_path: Path) -> None:
    problems = every_kind_of_problem(tmp_path)
    assert {p.kind for p in problems} == {"function", "io", "equation"}
    rows = list(to_dataset(problems))   # through Arrow and back, as TRL reads them
    assert [from_row(row) for row in rows] == problems
    assert rows == [to_row(p) for p in problems]


def test_training_rows_give_the_candidates_eval_gives(tmp_path: Path) -> None:
    """The same benchmark files through `reward-server eval --benchmark` and through the TRL datasets."""
    lcb = write_jsonl(tmp_path / "lcb.jsonl", [LCB_ROW])
    lua = write_jsonl(tmp_path / "lua.jsonl", [MULTIPL_E_ROW])
    pairs = [(load_benchmark(f"lcb-{style}", BenchmarkOptions(source=lcb, lcb_languages=LCB_LANGUAGES)),
              benchmarks.livecodebench(read_rows(lcb), languages=LCB_LANGUAGES, style=style))
             for style in livecodebench.STYLES]
    pairs += [(load_benchmark("multipl-e", BenchmarkOptions(source=lua)), benchmarks.multipl_e(read_rows(lua))),
              (load_benchmark("humaneval", BenchmarkOptions()), benchmarks.humaneval()),
              (load_benchmark("sair", BenchmarkOptions(source=str(SAIR_JSONL))),
               benchmarks.sair(read_rows(str(SAIR_JSONL)), SAIR_TEMPLATE))]
    for evaluated, dataset in pairs:
        assert len(evaluated) == len(dataset) > 0
        for problem, row in zip(evaluated, dataset, strict=True):
            trained = from_row(row)
            # eval names an LCB problem per language; otherwise the two are the same Problem
            assert problem.id in (trained.id, f"{trained.id}/{trained.language}")
            for run_all_tests in (False, True):
                assert (trained.candidate("c", "answer", run_all_tests=run_all_tests)
                        == problem.candidate("c", "answer", run_all_tests=run_all_tests))


@pytest.mark.parametrize("partial_credit", [False, True])
def test_the_reward_functions_send_the_problems_candidates(server_address: str, partial_credit: bool) -> None:
    problems = [*livecodebench.problems([LCB_ROW], languages=("python", "klingon"), table=TABLE, style="agnostics"),
                *multipl_e.problems([MULTIPL_E_ROW], TABLE),
                *equational.problems(equational.sample_problems(DATA_DIR, 2, seed=3), SAIR_TEMPLATE)]
    rows = to_dataset(problems)
    columns = {name: rows[name] for name in COLUMNS}
    completions = [[{"role": "assistant", "content": f"answer {i}"}] for i in range(len(rows))]
    code = code_reward(server_address, partial_credit=partial_credit)
    equation = equation_reward(server_address)
    try:
        code_at, code_sent = code._candidates(rows["prompt"], completions, columns)
        equation_at, equation_sent = equation._candidates(rows["prompt"], completions, columns)
    finally:
        code.close()
        equation.close()
    assert code_at == [0, 1, 2] and equation_at == [3, 4]
    assert code_sent + equation_sent == [
        p.candidate(f"{p.id}#{i}", f"answer {i}", run_all_tests=partial_credit and p.kind != "equation")
        for i, p in enumerate(problems)]
