"""MultiPL-E rows -> function-style Problems.

The same row layout (name, language, prompt, tests, stop_tokens) is a row of the nuprl/MultiPL-E dataset and
the header of a MultiPL-E completions or results file. The model is asked to continue the prompt's code; the
program is prompt + completion (cut at the row's stop tokens) + tests.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from benchmarks import prompts
from benchmarks.problem import Problem

BENCHMARK = "multipl-e"


def problem(row: Mapping[str, Any], table: prompts.LanguageTable, benchmark: str = BENCHMARK) -> Problem:
    names = prompts.LanguageNames.lookup(table, row["language"])
    return Problem(id=row["name"], benchmark=benchmark, language=row["language"],
                   messages=prompts.multipl_e_messages(row["prompt"], names), code_prompt=row["prompt"],
                   tests=row["tests"], stop_tokens=tuple(row["stop_tokens"]))


def problems(rows: Iterable[Mapping[str, Any]], table: prompts.LanguageTable) -> list[Problem]:
    return [problem(row, table) for row in rows]
