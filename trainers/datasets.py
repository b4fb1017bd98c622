"""Problems as rows of a `datasets.Dataset` (TRL's training data) and back: one column per Problem field.

Every benchmark lands in the same columns (FEATURES), so code and equation sets concatenate into one mix:
  prompt       the chat the model is asked (TRL's conversational column; Problem.messages)
  task         "code" or "equation": each reward function scores its own kind, returns None for the other
  source       benchmark name, used to group held-out sets (Problem.benchmark)
  problem_id   stable id; the train/held-out split is a function of it (Problem.id)
  the other columns are the Problem fields of the same name ("" / [] / False where a kind has none).
A row turns back into the very Problem it came from, and that Problem's `candidate` is what the reward
functions and the held-out callback send: training grades exactly what eval grades.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import datasets

from benchmarks.problem import Checker, Problem

FEATURES = datasets.Features({
    "prompt": datasets.List({"role": datasets.Value("string"), "content": datasets.Value("string")}),
    "task": datasets.Value("string"),
    "source": datasets.Value("string"),
    "problem_id": datasets.Value("string"),
    "language": datasets.Value("string"),
    "code_prompt": datasets.Value("string"),
    "stop_tokens": datasets.List(datasets.Value("string")),
    "tests": datasets.Value("string"),
    "io_tests": datasets.List({"stdin": datasets.Value("string"), "expected_stdout": datasets.Value("string")}),
    "comparator": datasets.Value("string"),
    "extraction": datasets.Value("string"),
    "expected": datasets.Value("bool"),
    "timeout_s": datasets.Value("float64"),
    "function_name": datasets.Value("string"),
    "checker_language": datasets.Value("string"),     # "" when the problem has no checker
    "checker_source": datasets.Value("string"),
    "equation1": datasets.Value("string"),
    "equation2": datasets.Value("string"),
    "require_counterexample": datasets.Value("bool"),
})
# What TRL hands a reward function as columns; the chat comes separately, as `prompts`.
COLUMNS = tuple(name for name in FEATURES if name != "prompt")


def to_row(problem: Problem) -> dict[str, Any]:
    return {
        "prompt": problem.chat, "task": "equation" if problem.kind == "equation" else "code",
        "source": problem.benchmark, "problem_id": problem.id, "language": problem.language,
        "code_prompt": problem.code_prompt, "stop_tokens": list(problem.stop_tokens), "tests": problem.tests,
        "io_tests": [{"stdin": stdin, "expected_stdout": out} for stdin, out in problem.io_tests],
        "comparator": problem.comparator, "extraction": problem.extraction, "expected": bool(problem.expected),
        "timeout_s": problem.timeout_s, "function_name": problem.function_name,
        "checker_language": problem.checker.language if problem.checker else "",
        "checker_source": problem.checker.source if problem.checker else "",
        "equation1": problem.equation1, "equation2": problem.equation2,
        "require_counterexample": problem.require_counterexample,
    }


def from_row(row: Mapping[str, Any]) -> Problem:
    return Problem(
        id=row["problem_id"], benchmark=row["source"], language=row["language"],
        messages=tuple((message["role"], message["content"]) for message in row["prompt"]),
        code_prompt=row["code_prompt"], tests=row["tests"], stop_tokens=tuple(row["stop_tokens"]),
        io_tests=tuple((test["stdin"], test["expected_stdout"]) for test in row["io_tests"]),
        comparator=row["comparator"], extraction=row["extraction"],
        expected=bool(row["expected"]) if row["task"] == "equation" else None, timeout_s=float(row["timeout_s"]),
        function_name=row["function_name"],
        checker=Checker(row["checker_language"], row["checker_source"]) if row["checker_language"] else None,
        equation1=row["equation1"], equation2=row["equation2"],
        require_counterexample=bool(row["require_counterexample"]))


def to_dataset(problems: Iterable[Problem]) -> datasets.Dataset:
    return datasets.Dataset.from_list([to_row(problem) for problem in problems], features=FEATURES)
