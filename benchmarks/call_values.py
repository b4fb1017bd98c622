"""The kinds of JSON value a call-based (LiveCodeBench functional) test holds, so that a test is posed only in a
language whose harness can pass its arguments and report its result (the language table's `call_harness.values`).

Kinds: "int" (an integer a double holds exactly, |n| <= 2**53), "long" (any other 64-bit integer), "bigint"
(beyond 64 bits), "float", "nonfinite" (NaN or an infinity, which Python's json reads), "bool", "string", "null",
"list" (elements of one shape: numbers mix, an empty list fits any list), "mixed_list" (elements of different
shapes, e.g. [1, "a"] or [[1], ["a"]]) and "object". The loaders (benchmarks/livecodebench.py) and the grader
(reward_server/graders/call_based.py) both ask here, and read a test's arguments the same way (argument_lines).
"""

from __future__ import annotations

import math
from typing import Any

KINDS = ("int", "long", "bigint", "float", "nonfinite", "bool", "string", "null", "list", "mixed_list", "object")
_EXACT_IN_DOUBLE = 2**53
_INT64 = 2**63


def argument_lines(stdin: str) -> list[str]:
    """LiveCodeBench splits a test's input on "\n" and reads each line as one argument; one final newline is
    ignored."""
    return stdin.removesuffix("\n").split("\n")


def kinds(value: Any) -> set[str]:
    """Every kind in `value`, nested ones included."""
    found: set[str] = set()
    _shape(value, found)
    return found


def _shape(value: Any, found: set[str]) -> Any:
    """The value's shape (what list elements must agree on), adding its kinds to `found`."""
    if isinstance(value, bool):
        found.add("bool")
        return "bool"
    if isinstance(value, int):
        found.add("int" if abs(value) <= _EXACT_IN_DOUBLE else "long" if -_INT64 <= value < _INT64 else "bigint")
        return "number"
    if isinstance(value, float):
        found.add("float" if math.isfinite(value) else "nonfinite")
        return "number"
    if isinstance(value, str):
        found.add("string")
        return "string"
    if value is None:
        found.add("null")
        return "null"
    if isinstance(value, list):
        found.add("list")
        shape = None
        for item in value:
            shape = _unify(shape, _shape(item, found))
        if shape == "mixed":
            found.add("mixed_list")
        return ("list", shape)
    found.add("object")
    for item in value.values():
        _shape(item, found)
    return "object"


def _unify(a: Any, b: Any) -> Any:
    """One shape for two list elements: None is an empty list's element (it fits anything); else "mixed"."""
    if a is None or a == b:
        return b
    if b is None:
        return a
    if isinstance(a, tuple) and isinstance(b, tuple):
        inner = _unify(a[1], b[1])
        return "mixed" if inner == "mixed" else ("list", inner)
    return "mixed"
