"""Eval's readers and writers: problem JSONL, completion sources, the result store, MultiPL-E layout."""

from __future__ import annotations

import dataclasses
import gzip
import json
from pathlib import Path

import pytest

from benchmarks import humaneval, problem_jsonl
from benchmarks.problem import Checker, ProblemFormatError
from reward_server.evaluation.completions import read_completions, read_completions_jsonl
from reward_server.evaluation.results import EQUATION_LANGUAGE, ResultRecord, ResultStore, write_multipl_e_results
from reward_server.evaluation.runner import latest, pending_work
from reward_server.pb import reward_pb2
from tests.language_table import load_table

ROWS = [
    {"id": "add", "language": "python", "prompt": "def add(a, b):\n", "tests": "assert add(2, 3) == 5\n",
     "stop_tokens": ["\ndef"]},
    {"id": "sum", "benchmark": "io-set", "language": "cpp", "prompt": "Sum two ints.",
     "io_tests": [{"stdin": "1 2\n", "expected_stdout": "3\n"}, {"input": "2 2\n", "output": "4\n"}],
     "comparator": "lenient", "extraction": "first_block", "timeout_s": 3},
    {"id": "eq", "prompt": "Does it hold?", "expected": False},
]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def record(problem_id: str, sample: int, verdict: str, *, benchmark: str = "b", language: str = "python",
           completion: str = "") -> ResultRecord:
    reward = None if verdict.startswith("INFRA_") else float(verdict == "PASS")
    return ResultRecord(id=f"{problem_id}/{sample}", problem_id=problem_id, benchmark=benchmark, language=language,
                        sample=sample, verdict=verdict, reward=reward, detail="d", elapsed_s=0.1, sandbox="s",
                        completion=completion)


def test_problem_jsonl_kinds_and_candidates(tmp_path: Path) -> None:
    add, total, eq = problem_jsonl.load(write_jsonl(tmp_path / "mini.jsonl", ROWS))
    assert (add.kind, total.kind, eq.kind) == ("function", "io", "equation")
    assert (add.benchmark, total.benchmark, eq.language) == ("mini", "io-set", "")   # an equation has no language
    reported = ResultRecord.from_result(eq, 0, "", reward_pb2.ScoreResult(id="eq/0", verdict=reward_pb2.PASS))
    assert reported.language == EQUATION_LANGUAGE
    assert add.chat == [{"role": "user", "content": "def add(a, b):\n"}]
    assert total.chat == [{"role": "user", "content": "Sum two ints."}]

    code = add.candidate("add/0", "    return a + b\n")
    assert code.id == "add/0"
    assert code.code.prompt == "def add(a, b):\n" and list(code.code.stop_tokens) == ["\ndef"]
    assert code.code.extraction == reward_pb2.EXTRACTION_NONE

    io = total.candidate("sum/1", "```cpp\n...\n```").code
    assert io.prompt == ""    # an io prompt is for the model, never part of the program
    assert [(t.stdin, t.expected_stdout) for t in io.io_tests] == [("1 2\n", "3\n"), ("2 2\n", "4\n")]
    assert (io.comparator, io.extraction, io.timeout_s) == (reward_pb2.LENIENT, reward_pb2.FIRST_BLOCK, 3.0)

    equation = eq.candidate("eq/0", "\\boxed{FALSE}")
    assert equation.WhichOneof("task") == "equation" and equation.equation.expected is False


@pytest.mark.parametrize(("row", "message"), [
    ({"id": "x", "language": "py", "prompt": ""}, "needs 'tests', 'io_tests' or 'expected'"),
    ({"id": "x", "language": "py", "tests": "t", "comparator": "fuzzy"}, "comparator"),
    ({"id": "x", "language": "py", "tests": "t", "stop_tokens": "\n"}, "stop_tokens"),
    ({"id": "x", "expected": "yes"}, "'expected'"),
    ({"id": "x", "expected": True, "messages": [{"role": "user"}]}, "messages"),
    ({"language": "py", "tests": "t"}, "'id'"),
])
def test_problem_jsonl_errors_name_the_line_and_field(tmp_path: Path, row: dict, message: str) -> None:
    path = write_jsonl(tmp_path / "bad.jsonl", [ROWS[0], row])
    with pytest.raises(ProblemFormatError, match=message) as error:
        problem_jsonl.load(path)
    assert f"{path}:2" in str(error.value)


def test_duplicate_problem_ids_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ProblemFormatError, match="duplicate problem id 'add'"):
        problem_jsonl.load(write_jsonl(tmp_path / "dup.jsonl", [ROWS[0], ROWS[0]]))


def test_a_problem_row_reads_back_as_the_same_problem(tmp_path: Path) -> None:
    """What carries a problem through a training framework's data (a label, a task's data): chat and all."""
    checked = dataclasses.replace(problem_jsonl.load(write_jsonl(tmp_path / "p.jsonl", ROWS))[1],
                                  messages=(("system", "Be brief."), ("user", "Sum two ints.")),
                                  checker=Checker("python", "print('ok')"), function_name="")
    problems = [*humaneval.problems(load_table())[:3], *problem_jsonl.load(tmp_path / "p.jsonl"), checked]
    for problem in problems:
        assert problem_jsonl.problem(json.loads(json.dumps(problem_jsonl.row(problem))), "other", "row") == problem


def test_humaneval_from_the_package() -> None:
    problems = humaneval.problems(load_table())
    assert len(problems) == 164
    first = problems[0]
    assert first.id == "HumanEval/0" and first.language == "python" and first.kind == "function"
    assert first.stop_tokens == ("\nclass", "\ndef", "\n#", "\nif", "\nprint")   # the HumanEval paper's
    assert first.tests.rstrip().endswith("check(has_close_elements)")


def test_completions_jsonl_keeps_sample_order(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "c.jsonl", [{"problem_id": "a", "completion": "0"},
                                              {"task_id": "b", "completion": "x"},
                                              {"problem_id": "a", "completion": "1"}])
    assert read_completions_jsonl(path) == {"a": ["0", "1"], "b": ["x"]}
    bad = write_jsonl(tmp_path / "bad.jsonl", [{"problem_id": "a"}])
    with pytest.raises(ProblemFormatError, match=r"bad\.jsonl:1"):
        read_completions_jsonl(bad)


def test_multipl_e_directory_carries_problems_and_completions(tmp_path: Path) -> None:
    directory = tmp_path / "humaneval-lua-model-0.2-reworded"
    directory.mkdir()
    row = {"name": "HumanEval_0_x", "language": "lua", "prompt": "local function x()\n", "tests": "assert(x())\n",
           "stop_tokens": ["\nlocal"], "completions": ["  return true\nend\n", "  return false\nend\n"],
           "temperature": 0.2}
    with gzip.open(directory / "HumanEval_0_x.json.gz", "wt") as stream:
        json.dump(row, stream)
    with gzip.open(directory / "HumanEval_0_x.results.json.gz", "wt") as stream:   # not a completions file
        json.dump({**row, "results": []}, stream)
    problems, completions = read_completions(directory)
    assert [(p.id, p.language, p.benchmark, p.stop_tokens) for p in problems] == [
        ("HumanEval_0_x", "lua", "humaneval-lua-model-0.2-reworded", ("\nlocal",))]
    assert completions == {"HumanEval_0_x": row["completions"]}


def test_store_appends_resumes_and_drops_a_torn_line(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    store = ResultStore(path)
    store.append([record("a", 0, "PASS"), record("a", 1, "INFRA_SANDBOX_ERROR")])
    with path.open("a") as stream:
        stream.write('{"id": "a/2", "probl')          # killed mid-write
    store = ResultStore(path)
    assert [r.id for r in store.load()] == ["a/0", "a/1"]
    store.append([record("a", 1, "WRONG_ANSWER")])   # the infra failure's retry
    done = latest(store.load())
    assert {k: r.verdict for k, r in done.items()} == {"a/0": "PASS", "a/1": "WRONG_ANSWER"}


def test_pending_work_skips_model_verdicts_and_retries_infra(tmp_path: Path) -> None:
    (add,) = problem_jsonl.load(write_jsonl(tmp_path / "p.jsonl", ROWS[:1]))
    done = latest([record("add", 0, "PASS"), record("add", 1, "INFRA_OVERLOADED")])
    work = pending_work([add], {"add": ["c0", "c1", "c2"], "other": ["x"]}, done)
    assert [(w.id, w.completion) for w in work] == [("add/1", "c1"), ("add/2", "c2")]


def test_multipl_e_results_layout(tmp_path: Path) -> None:
    problems = problem_jsonl.load(write_jsonl(tmp_path / "p.jsonl", ROWS))
    records = [record("add", 1, "WRONG_ANSWER", completion="    return a - b\n\ndef extra():\n"),
               record("add", 0, "PASS", completion="    return a + b\n"),
               record("add", 2, "TIMEOUT"), record("add", 3, "COMPILE_ERROR"), record("add", 4, "INFRA_DEADLINE")]
    assert write_multipl_e_results(tmp_path / "out", problems, records) == 1   # function style only
    with gzip.open(tmp_path / "out" / "add.results.json.gz", "rt") as stream:
        body = json.load(stream)
    assert (body["name"], body["language"], body["stop_tokens"]) == ("add", "python", ["\ndef"])
    statuses = [(r["status"], r["exit_code"]) for r in body["results"]]
    assert statuses == [("OK", 0), ("Exception", 1), ("Timeout", None), ("SyntaxError", 1)]   # infra left out
    assert body["results"][0]["program"] == "def add(a, b):\n    return a + b\n\nassert add(2, 3) == 5\n"
    assert "extra" not in body["results"][1]["program"]   # cut at the stop token, as graded
    # MultiPL-E's own pass@k rule over this file: status OK and exit code 0
    assert sum(r["status"] == "OK" and r["exit_code"] == 0 for r in body["results"]) == 1
