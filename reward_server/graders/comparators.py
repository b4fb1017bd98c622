"""Whether a program's stdout matches a test's expected output, under each reference's rule.

* EXACT (Agnostics): ``got.rstrip() == expected.rstrip()``; leading whitespace, inner blank lines
  and every character before the trailing whitespace matter.
* LCB (official LiveCodeBench, ``grade_stdio``): both sides ``strip()``-ed, split on "\\n", each
  line ``strip()``-ed; the line counts must be equal; a line pair matches when the strings are
  equal, or when both split (on whitespace) into tokens that all parse as ``decimal.Decimal`` and
  the two lists are equal (so "1.0" matches "1", "1e2" matches "100", "inf" matches "Infinity",
  a NaN token never matches). Upstream, comparing a signalling NaN raises and the test counts
  as a runtime error; here it is simply no match.
* LENIENT (Multi-LCB): as LCB, plus a line pair matches when both are "true"/"false" in any case
  (same word), and decimal tokens match when ``|a - b| <= 1e-5`` (the tolerance is the exact
  decimal 0.00001, so values exactly 1e-5 apart match and 1.00001e-5 apart do not). NaN never
  matches. Infinities match only an equal infinity (the same as LCB; never within tolerance of
  a finite number). Differences are computed at 100 significant digits with no traps, so huge
  exponents overflow to a no-match instead of raising.

stdin: Multi-LCB feeds each input with a trailing newline added when it lacks one (an empty
input becomes "\\n"); LiveCodeBench and Agnostics feed the input unchanged.
"""

from __future__ import annotations

import decimal
import enum
from collections.abc import Callable
from decimal import Decimal

_ABS_TOL = Decimal("0.00001")
_ARITHMETIC = decimal.Context(prec=100, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN, traps=[])
_BOOLEAN_WORDS = frozenset({"true", "false"})


class Comparator(enum.Enum):
    EXACT = "EXACT"
    LENIENT = "LENIENT"
    LCB = "LCB"


def _stripped_lines(text: str) -> list[str]:
    return [line.strip() for line in text.strip().split("\n")]


def _decimals(line: str) -> list[Decimal] | None:
    try:
        return [Decimal(token) for token in line.split()]
    except decimal.InvalidOperation:
        return None


def _lines_match(got: str, expected: str, line_match: Callable[[str, str], bool]) -> bool:
    got_lines, expected_lines = _stripped_lines(got), _stripped_lines(expected)
    if len(got_lines) != len(expected_lines):
        return False
    return all(a == b or line_match(a, b) for a, b in zip(got_lines, expected_lines, strict=True))


def _decimal_lines(a: str, b: str, close: Callable[[Decimal, Decimal], bool]) -> bool:
    xs, ys = _decimals(a), _decimals(b)
    if xs is None or ys is None or len(xs) != len(ys):
        return False
    return all(not x.is_nan() and not y.is_nan() and close(x, y) for x, y in zip(xs, ys, strict=True))


def _within_tolerance(x: Decimal, y: Decimal) -> bool:
    if x.is_infinite() or y.is_infinite():
        return x == y
    return _ARITHMETIC.subtract(x, y).copy_abs() <= _ABS_TOL


def _lcb_line(a: str, b: str) -> bool:
    return _decimal_lines(a, b, Decimal.__eq__)


def _lenient_line(a: str, b: str) -> bool:
    if a.lower() == b.lower() and a.lower() in _BOOLEAN_WORDS:
        return True
    return _decimal_lines(a, b, _within_tolerance)


_COMPARE: dict[Comparator, Callable[[str, str], bool]] = {
    Comparator.EXACT: lambda got, expected: got.rstrip() == expected.rstrip(),
    Comparator.LCB: lambda got, expected: _lines_match(got, expected, _lcb_line),
    Comparator.LENIENT: lambda got, expected: _lines_match(got, expected, _lenient_line),
}

_STDIN: dict[Comparator, Callable[[str], str]] = {
    Comparator.EXACT: lambda stdin: stdin,
    Comparator.LCB: lambda stdin: stdin,
    Comparator.LENIENT: lambda stdin: stdin if stdin.endswith("\n") else stdin + "\n",
}


def compare(comparator: Comparator, got: str, expected: str) -> bool:
    """Whether stdout `got` passes for `expected` under `comparator`."""
    return _COMPARE[comparator](got, expected)


def stdin_for(comparator: Comparator, stdin: str) -> str:
    """The stdin the reference harness behind `comparator` would feed for a test's `stdin`."""
    return _STDIN[comparator](stdin)
