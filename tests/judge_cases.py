"""Real MultiPL-E problems as MultiPL-E poses them, with a right and a wrong completion each (tests/data/SOURCE.md).

A right completion must pass wherever MultiPL-E's own judge passes it: its prompts import libraries (javatuples) and
its tests load test libraries (luaunit, Test::Deep, rackunit, test/unit, ...) that its judge image installs, so every
sandbox must have them too. Both backends' tests pose these rows.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path

ROWS = Path(__file__).with_name("data") / "multipl_e_humaneval.jsonl"


@dataclasses.dataclass(frozen=True)
class MultiplECase:
    name: str
    language: str                   # MultiPL-E's key (`pl`, `rkt`, ...), which the server resolves
    prompt: str
    tests: str
    stop_tokens: tuple[str, ...]
    right: str
    wrong: str

    @property
    def id(self) -> str:
        return f"{self.language}/{self.name}"


@functools.cache
def multipl_e_cases() -> tuple[MultiplECase, ...]:
    cases = []
    for line in ROWS.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        right, wrong = row["completions"]
        cases.append(MultiplECase(row["name"], row["language"], row["prompt"], row["tests"],
                                  tuple(row["stop_tokens"]), right, wrong))
    return tuple(cases)
