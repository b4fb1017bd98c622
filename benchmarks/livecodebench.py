"""LiveCodeBench-family rows (LiveCodeBench, Ag-LiveCodeBench-X, Multi-LCB) -> stdin/stdout Problems.

Each problem is posed once per language, all under one id (so the split keeps its languages together). The
three styles differ in prompt, output comparator and code extraction (docs/grading.md). Functional (LeetCode) tests
need a per-language harness and are skipped, as Ag-LiveCodeBench-X does.
"""

from __future__ import annotations

import base64
import io
import json
import logging
import pickle
import zlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

from benchmarks import prompts
from benchmarks.problem import Problem

log = logging.getLogger(__name__)


class Style(NamedTuple):
    messages: Callable[[str, str, prompts.LanguageNames], prompts.Messages]
    comparator: str
    extraction: str


STYLES: dict[str, Style] = {
    "multilcb": Style(prompts.multilcb_messages, "lenient", "first_block"),
    "agnostics": Style(prompts.agnostics_messages, "exact", "first_block"),
    "lcb": Style(prompts.multilcb_messages, "lcb", "last_block"),
}


def problems(rows: Iterable[Mapping[str, Any]], *, languages: Iterable[str], table: prompts.LanguageTable,
             style: str = "multilcb") -> list[Problem]:
    """One Problem per (stdin problem, language), in row order."""
    chosen = STYLES[style]
    names = [(language, prompts.LanguageNames.lookup(table, language)) for language in languages]
    out, skipped = [], 0
    for row in rows:
        tests = decode_tests(row.get("public_test_cases")) + decode_tests(row.get("private_test_cases"))
        if not tests or any(test.get("testtype", "stdin") != "stdin" for test in tests):
            skipped += 1
            continue
        io_tests = tuple((test["input"], test["output"]) for test in tests)
        out.extend(Problem(
            id=f"lcb/{row['question_id']}", benchmark=f"lcb-{style}", language=language,
            messages=chosen.messages(row["question_content"], language, language_names), io_tests=io_tests,
            comparator=chosen.comparator, extraction=chosen.extraction) for language, language_names in names)
    if skipped:
        log.info("LiveCodeBench: skipped %d problems without stdin tests", skipped)
    return out


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
