"""What `trainers.grpo` mixes: each benchmark of the problem layer (`benchmarks`) as a TRL dataset, and the
train/held-out split of the mix. Prompts name languages as the sandboxes' language table does."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import datasets

from benchmarks import equational as equational_problems
from benchmarks import humaneval as humaneval_problems
from benchmarks import livecodebench as livecodebench_problems
from benchmarks import multipl_e as multipl_e_problems
from benchmarks import sair as sair_problems
from benchmarks.equational import EquationalProblem
from benchmarks.livecodebench import STYLES as LCB_STYLES
from benchmarks.rows import read_rows
from sandboxes.languages import LanguageTable
from trainers.datasets import to_dataset
from trainers.splits import HELDOUT, TRAIN, split_of

__all__ = ["LCB_STYLES", "equational", "humaneval", "livecodebench", "multipl_e", "read_rows", "sair", "split"]


def multipl_e(rows: Iterable[Mapping[str, Any]]) -> datasets.Dataset:
    return to_dataset(multipl_e_problems.problems(rows, LanguageTable.load()))


def humaneval() -> datasets.Dataset:
    return to_dataset(humaneval_problems.problems(LanguageTable.load()))


def livecodebench(rows: Iterable[Mapping[str, Any]], *, languages: Iterable[str],
                  style: str = "multilcb") -> datasets.Dataset:
    return to_dataset(livecodebench_problems.problems(rows, languages=languages, table=LanguageTable.load(),
                                                      style=style))


def sair(rows: Iterable[Mapping[str, Any]], template: str, *, require_counterexample: bool = False) -> datasets.Dataset:
    return to_dataset(sair_problems.problems(rows, template, require_counterexample=require_counterexample))


def equational(implications: Iterable[EquationalProblem], template: str, *,
               require_counterexample: bool = False) -> datasets.Dataset:
    return to_dataset(equational_problems.problems(implications, template,
                                                   require_counterexample=require_counterexample))


def split(dataset: datasets.Dataset, *, seed: int,
          heldout_fraction: float) -> tuple[datasets.Dataset, datasets.Dataset]:
    """(train, held-out) by problem id."""
    sides = [split_of(pid, seed=seed, heldout_fraction=heldout_fraction) for pid in dataset["problem_id"]]
    train = [i for i, side in enumerate(sides) if side == TRAIN]
    heldout = [i for i, side in enumerate(sides) if side == HELDOUT]
    return dataset.select(train), dataset.select(heldout)
