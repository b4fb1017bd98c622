"""SAIR Stage 1 rows (id, eq1_id, eq2_id, equation1, equation2, answer) -> equational Problems."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from benchmarks.equational import EquationalProblem
from benchmarks.problem import Problem

BENCHMARK = "sair"
TEMPLATE = "sair-stage1/example_complete_prompt.txt"   # the competition's prompt, in the offline data directory


def problems(rows: Iterable[Mapping[str, Any]], template: str, *,
             require_counterexample: bool = False) -> list[Problem]:
    return [EquationalProblem(int(row["eq1_id"]), int(row["eq2_id"]), row["equation1"], row["equation2"],
                              bool(row["answer"])).problem(template, BENCHMARK,
                                                           require_counterexample=require_counterexample)
            for row in rows]
