"""Training data from our problems: a named benchmark (eval's loaders) or a problems JSONL, written for a framework.

    python -m integrations.problems --benchmark humaneval --output humaneval.jsonl
    python -m integrations.problems --benchmark lcb-lcb --benchmark-source lcb.jsonl --format openrlhf --output rl.jsonl
    python -m integrations.problems --benchmark humaneval --format verl --output humaneval.parquet
    python -m integrations.problems --benchmark humaneval --format nemo-gym --output humaneval-nemo-gym.jsonl

`problems` writes our problems JSONL (benchmarks/FORMAT.md, chat included), which the verifiers taskset loads;
`openrlhf` writes OpenRLHF's prompt rows (`prompt`: the chat, `label`: the problem as JSON), `verl` verl's rows
(`reward_model.ground_truth`: the problem as JSON), `nemo-gym` NeMo Gym's task rows (`responses_create_params`,
`agent_ref`, `problem`), `skyrl` SkyRL's (`env_class`, `reward_spec.ground_truth`). An output named *.parquet is
written as parquet (verl's and SkyRL's data files; pyarrow comes with verl and with `datasets`), any other as JSON
lines.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks import problem_jsonl
from benchmarks.problem import Problem
from integrations import nemo_gym, openrlhf, skyrl, verl
from reward_server.evaluation.benchmarks import NAMES, BenchmarkOptions, load_benchmark

FORMATS: dict[str, Callable[[Problem], dict[str, Any]]] = {"problems": problem_jsonl.row,
                                                           "openrlhf": openrlhf.dataset_row,
                                                           "verl": verl.dataset_row,
                                                           "nemo-gym": nemo_gym.dataset_row,
                                                           "skyrl": skyrl.dataset_row}


def write(problems: Sequence[Problem], path: Path, form: str) -> None:
    rows = [FORMATS[form](problem) for problem in problems]
    if path.suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(rows), path)
        return
    with path.open("w", encoding="utf-8") as stream:
        for row in rows:
            stream.write(json.dumps(row) + "\n")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m integrations.problems", description=__doc__.split("\n\n")[0])
    given = parser.add_mutually_exclusive_group(required=True)
    given.add_argument("--benchmark", choices=NAMES, help="a named benchmark, as `reward-server eval` loads it")
    given.add_argument("--problems", type=Path, help="a problems JSONL (benchmarks/FORMAT.md)")
    parser.add_argument("--benchmark-source", help="the benchmark's rows: a local .jsonl/.json, or hub NAME[:CONFIG]")
    parser.add_argument("--lcb-languages", default="python", help="LiveCodeBench: comma-separated languages")
    parser.add_argument("--format", choices=FORMATS, default="problems", help="what to write (default: problems)")
    parser.add_argument("--output", type=Path, required=True)
    args = parser.parse_args(argv)
    problems = (problem_jsonl.load(args.problems) if args.problems else load_benchmark(
        args.benchmark, BenchmarkOptions(source=args.benchmark_source,
                                         lcb_languages=tuple(args.lcb_languages.split(",")))))
    write(problems, args.output, args.format)
    print(f"wrote {len(problems)} problems to {args.output}")


if __name__ == "__main__":
    main()
