"""Named benchmarks for `eval --benchmark`: a name -> loader registry over the problem layer (`benchmarks`).

HumanEval is built in; the others read --benchmark-source (a local .json/.jsonl file, read without extras, or
a hub NAME[:CONFIG], which needs `datasets` from the [train] extra). Training loads the same loaders, so eval
grades exactly what training grades.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from benchmarks import humaneval, livecodebench, multipl_e, sair
from benchmarks.data_dir import data_dir
from benchmarks.problem import Problem, unique
from benchmarks.rows import read_source
from sandboxes.languages import LanguageTable


@dataclasses.dataclass(frozen=True)
class BenchmarkOptions:
    source: str | None = None              # a local .jsonl/.json file, or hub NAME[:CONFIG]
    lcb_languages: tuple[str, ...] = ("python",)
    sair_template: Path | None = None      # default: the SAIR prompt in the offline data directory


class BenchmarkError(ValueError):
    """The benchmark cannot be loaded as asked (missing source, missing extra)."""


def _rows(options: BenchmarkOptions) -> Iterator[dict[str, Any]]:
    if options.source is None:
        raise BenchmarkError("this benchmark needs --benchmark-source (a .jsonl/.json file or hub NAME[:CONFIG])")
    return read_source(options.source)


def _lcb(style: str) -> Callable[[BenchmarkOptions, LanguageTable], list[Problem]]:
    def load(options: BenchmarkOptions, table: LanguageTable) -> list[Problem]:
        problems = livecodebench.problems(_rows(options), languages=options.lcb_languages, table=table, style=style)
        # eval scores each language as a problem of its own; training keeps one id so the split keeps them together
        return [dataclasses.replace(p, id=f"{p.id}/{p.language}") for p in problems]
    return load


def _sair(options: BenchmarkOptions, table: LanguageTable) -> list[Problem]:
    template = options.sair_template or data_dir() / sair.TEMPLATE
    return sair.problems(_rows(options), template.read_text(encoding="utf-8"))


LOADERS: dict[str, Callable[[BenchmarkOptions, LanguageTable], list[Problem]]] = {
    "humaneval": lambda options, table: humaneval.problems(table),
    "multipl-e": lambda options, table: multipl_e.problems(_rows(options), table),
    "lcb-multilcb": _lcb("multilcb"),
    "lcb-agnostics": _lcb("agnostics"),
    "lcb-lcb": _lcb("lcb"),
    "sair": _sair,
}
NAMES = tuple(LOADERS)


def load_benchmark(name: str, options: BenchmarkOptions) -> list[Problem]:
    try:
        problems = LOADERS[name](options, LanguageTable.load())
    except ImportError as exc:
        raise BenchmarkError(f"benchmark {name} from the hub needs the [train] extra: {exc}") from None
    return unique(problems, name)
