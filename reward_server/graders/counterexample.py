"""A FALSE verdict's counterexample (docs/grading.md): a finite magma on which equation 1 holds and equation 2 fails.

It is read from the response's COUNTEREXAMPLE section: after the judge's markdown stripping, the text after the last
`COUNTEREXAMPLE:` header (a line that starts with it, after spaces or `#`/`>`) up to the next VERDICT, REASONING,
PROOF or COUNTEREXAMPLE header, or the end. In it, the first operation table: n rows of n integers in [0, n),
1 <= n <= 16, row a column b holding a * b, written as a JSON-style list of rows (`[[0, 1], [1, 0]]`, over any
number of lines) or, when the section holds no `[[`, as rows of numbers, one row a line, separated by spaces or
commas, a row optionally in brackets (the first run of such lines). Row and column labels are not read.
"""

from __future__ import annotations

import json
import re

import numpy as np

from reward_server.graders.equational import strip_markdown
from reward_server.graders.laws import Failure, first_failure, parse_law
from reward_server.verdicts import Verdict

MAX_ELEMENTS = 16
_HEADER = re.compile(r"^[ \t#>]*(VERDICT|REASONING|PROOF|COUNTEREXAMPLE)[ \t]*[:：]", re.IGNORECASE | re.MULTILINE)
_ROW = re.compile(r"[ \t]*\[?[ \t]*(-?\d+(?:[ \t]*[, \t][ \t]*-?\d+)*)[ \t]*,?[ \t]*\]?[ \t]*,?[ \t]*")
_NUMBER = re.compile(r"-?\d+")


class BadTable(ValueError):
    """The section holds no usable operation table; the message says why."""


def grade_counterexample(response: str, equation1: str, equation2: str) -> tuple[Verdict, str]:
    """(PASS, "") when the response's counterexample is a magma where equation 1 holds and equation 2 fails,
    else (BAD_COUNTEREXAMPLE, why). The equations are known to parse (the request was validated)."""
    try:
        table = _table(strip_markdown(response))
    except BadTable as exc:
        return Verdict.BAD_COUNTEREXAMPLE, str(exc)
    law1, law2 = parse_law(equation1), parse_law(equation2)
    failure = first_failure(law1, table)
    if failure is not None:
        return Verdict.BAD_COUNTEREXAMPLE, f"equation 1 ({equation1}) fails for {_described(failure)}"
    if first_failure(law2, table) is None:
        return Verdict.BAD_COUNTEREXAMPLE, (f"equation 2 ({equation2}) holds for every assignment in this "
                                            f"{len(table)}-element magma: it is no counterexample")
    return Verdict.PASS, ""


def _described(failure: Failure) -> str:
    assignment = ", ".join(f"{name} = {value}" for name, value in failure.assignment.items())
    return f"{assignment}: the left side is {failure.left}, the right side {failure.right}"


def _section(text: str) -> str:
    headers = list(_HEADER.finditer(text))
    last = max((i for i, header in enumerate(headers) if header.group(1).upper() == "COUNTEREXAMPLE"), default=None)
    if last is None:
        raise BadTable("no COUNTEREXAMPLE section")
    end = headers[last + 1].start() if last + 1 < len(headers) else len(text)
    return text[headers[last].end():end]


def _table(text: str) -> np.ndarray:
    section = _section(text)
    nested = re.search(r"\[\s*\[", section)
    rows = _json_rows(section, nested.start()) if nested else _number_rows(section)
    n = len(rows)
    if not 1 <= n <= MAX_ELEMENTS:
        raise BadTable(f"the table has {n} rows: a magma here has 1 to {MAX_ELEMENTS} elements")
    for a, row in enumerate(rows):
        if len(row) != n:
            raise BadTable(f"the table is not square: row {a} has {len(row)} entries, and there are {n} rows")
        for b, entry in enumerate(row):
            if not 0 <= entry < n:
                raise BadTable(f"the entry {entry} at row {a}, column {b} is not an element of [0, {n})")
    return np.array(rows, dtype=np.intp)


def _json_rows(section: str, start: int) -> list[list[int]]:
    depth = 0
    for at in range(start, len(section)):
        depth += {"[": 1, "]": -1}.get(section[at], 0)
        if depth == 0:
            break
    else:
        raise BadTable("the table's brackets are not closed")
    try:
        rows = json.loads(section[start:at + 1])
    except ValueError:
        raise BadTable("the table is not a list of rows of integers") from None
    if not all(isinstance(row, list) and all(type(entry) is int for entry in row) for row in rows):
        raise BadTable("the table is not a list of rows of integers")
    return rows


def _number_rows(section: str) -> list[list[int]]:
    rows: list[list[int]] = []
    for line in section.splitlines():
        match = _ROW.fullmatch(line)
        if match is not None:
            rows.append([int(number) for number in _NUMBER.findall(match.group(1))])
        elif rows:
            break
    if not rows:
        raise BadTable("no operation table in the COUNTEREXAMPLE section")
    return rows
