"""LiveCodeBench-family rows (LiveCodeBench, Ag-LiveCodeBench-X, Multi-LCB) -> stdin/stdout and call-based Problems.

Each problem is posed once per language, all under one id (so the split keeps its languages together). The
three styles differ in prompt, output comparator and code extraction (docs/grading.md). Functional (LeetCode)
problems (`metadata.func_name`, tests of type "functional") are posed, whatever the style, as LiveCodeBench poses
them: its starter code in the prompt (in another language, translated by benchmarks/starter_code.py), graded by a
call harness. They are posed only in a language whose call harness takes every value of their tests (the language
table's `call_harness.values`) and that has a starter translation; the rest are skipped, as are rows whose tests
mix the two types or whose functional tests are not JSON.
"""

from __future__ import annotations

import base64
import collections
import dataclasses
import io
import json
import logging
import pickle
import zlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

from benchmarks import prompts, starter_code
from benchmarks.call_values import argument_lines, kinds
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
    """One Problem per (problem, language) that can be posed, in row order."""
    chosen = STYLES[style]
    languages = list(languages)
    out: list[Problem] = []
    skipped: collections.Counter[str] = collections.Counter()
    for row in rows:
        tests = decode_tests(row.get("public_test_cases")) + decode_tests(row.get("private_test_cases"))
        types = {test.get("testtype", "stdin") for test in tests}
        io_tests = tuple((test["input"], test["output"]) for test in tests)
        base = Problem(id=f"lcb/{row['question_id']}", benchmark=f"lcb-{style}", language="", messages=(),
                       io_tests=io_tests, comparator=chosen.comparator, extraction=chosen.extraction)
        if types == {"stdin"}:
            out.extend(dataclasses.replace(base, language=language, messages=chosen.messages(
                row["question_content"], language, prompts.LanguageNames.lookup(table, language)))
                for language in languages)
        elif types == {"functional"} and (name := function_name(row)):
            posed = functional(row, base, name, languages, table)
            out.extend(posed)
            skipped["functional problem in a language it cannot be posed in"] += len(languages) - len(posed)
        else:
            skipped["problem without tests of one type"] += 1
    for why, count in skipped.items():
        if count:
            log.info("LiveCodeBench: skipped %d %s", count, why)
    return out


def function_name(row: Mapping[str, Any]) -> str:
    """The function a functional problem's tests call (LiveCodeBench's `metadata` JSON, `func_name`)."""
    metadata = row.get("metadata") or {}
    if isinstance(metadata, str):
        metadata = json.loads(metadata or "{}")
    return metadata.get("func_name") or ""


def functional(row: Mapping[str, Any], base: Problem, name: str, languages: list[str],
               table: prompts.LanguageTable) -> list[Problem]:
    """The functional problem in each language that can pose it."""
    try:
        arguments = [[json.loads(line) for line in argument_lines(stdin)] for stdin, _ in base.io_tests]
        results = [json.loads(expected) for _, expected in base.io_tests]
    except ValueError:
        return []
    values = set().union(*map(kinds, results), *(kinds(value) for test in arguments for value in test))
    signature = starter_code.python_signature(row.get("starter_code") or "", name)
    posed = []
    for language in languages:
        try:
            entry = table.resolve(language)
        except KeyError:
            continue
        if entry.call_harness is None or not values <= set(entry.call_harness.values):
            continue
        if entry.key == "python":
            starter = row.get("starter_code") or ""
        else:
            starter = signature and starter_code.starter(entry.key, signature, arguments, results)
        if not starter:
            continue
        messages = prompts.functional_messages(row["question_content"], language,
                                               prompts.LanguageNames.lookup(table, language), starter)
        posed.append(dataclasses.replace(base, language=language, messages=messages, function_name=name))
    return posed


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
