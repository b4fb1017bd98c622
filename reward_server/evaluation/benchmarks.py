"""Named benchmarks for `eval --benchmark`: HumanEval built in, the rest through the TRL helper's loaders.

The trainers loaders (MultiPL-E, LiveCodeBench styles, SAIR) need the [train] extra (`datasets`); they are
imported only when such a benchmark is asked for. Their rows become our Problems, so eval grades exactly
what training grades.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from reward_server.evaluation.problems import Problem, load_humaneval, problem_from_trainers_row, unique

SAIR_TEMPLATE = "sair-stage1/example_complete_prompt.txt"


@dataclasses.dataclass(frozen=True)
class BenchmarkOptions:
    source: str | None = None              # a local .jsonl/.json file, or hub NAME[:CONFIG]
    lcb_languages: tuple[str, ...] = ("python",)
    sair_template: Path | None = None      # default: the SAIR prompt in the offline data directory


class BenchmarkError(ValueError):
    """The benchmark cannot be loaded as asked (missing source, missing extra)."""


def _rows(source: str | None):
    from trainers import benchmarks

    if source is None:
        raise BenchmarkError("this benchmark needs --benchmark-source (a .jsonl/.json file or hub NAME[:CONFIG])")
    if Path(source).exists():
        return benchmarks.read_rows(source)
    name, _, config = source.partition(":")
    return benchmarks.read_rows(name, config=config or None)


def _lcb(style: str) -> Callable[[BenchmarkOptions], object]:
    def load(options: BenchmarkOptions):
        from trainers import benchmarks

        return benchmarks.livecodebench(_rows(options.source), languages=options.lcb_languages, style=style)
    return load


def _multipl_e(options: BenchmarkOptions):
    from trainers import benchmarks

    return benchmarks.multipl_e(_rows(options.source))


def _sair(options: BenchmarkOptions):
    from trainers import benchmarks
    from trainers.data_dir import data_dir

    template = options.sair_template or data_dir() / SAIR_TEMPLATE
    return benchmarks.sair(_rows(options.source), template.read_text(encoding="utf-8"))


TRAINERS_BENCHMARKS: dict[str, Callable[[BenchmarkOptions], object]] = {
    "multipl-e": _multipl_e,
    "lcb-multilcb": _lcb("multilcb"),
    "lcb-agnostics": _lcb("agnostics"),
    "lcb-lcb": _lcb("lcb"),
    "sair": _sair,
}
NAMES = ("humaneval", *TRAINERS_BENCHMARKS)


def load_benchmark(name: str, options: BenchmarkOptions) -> list[Problem]:
    if name == "humaneval":
        return load_humaneval()
    try:
        dataset = TRAINERS_BENCHMARKS[name](options)
    except ImportError as exc:
        raise BenchmarkError(f"benchmark {name} needs the [train] extra: {exc}") from None
    return unique((problem_from_trainers_row(row) for row in dataset), name)
