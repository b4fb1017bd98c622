"""Output comparison under the Agnostics (exact), Multi-LCB (lenient) and LiveCodeBench (lcb) rules,
and the stdin each harness feeds."""

from __future__ import annotations

import pytest

from reward_server.graders.comparators import Comparator, compare, stdin_for

EXACT, LENIENT, LCB = Comparator.EXACT, Comparator.LENIENT, Comparator.LCB


@pytest.mark.parametrize(
    ("got", "expected", "exact", "lenient", "lcb"),
    [
        ("3\n", "3", True, True, True),
        ("3", "3\n", True, True, True),
        ("3   \n\n\n", "3", True, True, True),
        ("1 2\n3 4\n", "1 2\n3 4", True, True, True),
        # trailing spaces inside lines: only the line-wise rules ignore them
        ("1 2  \n3\n", "1 2\n3\n", False, True, True),
        # leading whitespace matters for exact only
        (" 3\n", "3\n", False, True, True),
        ("\n3\n", "3\n", False, True, True),
        ("3\n", "  3", False, True, True),
        # inner blank lines count as lines everywhere
        ("1\n\n2\n", "1\n2\n", False, False, False),
        # line count
        ("1\n2\n", "1\n", False, False, False),
        ("1\n", "1\n2\n", False, False, False),
        ("", "", True, True, True),
        ("", "0", False, False, False),
        # tokens: spacing between tokens
        ("1  2\n", "1 2\n", False, True, True),
        ("1\t2\n", "1 2\n", False, True, True),
        ("1 2 3\n", "1 2\n", False, False, False),
        # CRLF output
        ("1\r\n2\r\n", "1\n2\n", False, True, True),
        # decimals: equal values in other spellings
        ("1.0\n", "1\n", False, True, True),
        ("100\n", "1e2\n", False, True, True),
        ("1E-3\n", "0.001\n", False, True, True),
        ("-0\n", "0\n", False, True, True),
        ("+5\n", "5\n", False, True, True),
        ("inf\n", "Infinity\n", False, True, True),
        ("-inf\n", "inf\n", False, False, False),
        ("1e400 2\n", "1E+400 2.0\n", False, True, True),
        # tolerance: 1e-5 apart passes lenient only, just over fails both
        ("0.30000\n", "0.30001\n", False, True, False),
        ("1.00001\n", "1\n", False, True, False),
        ("1.0000100001\n", "1\n", False, False, False),
        ("1.000011\n", "1\n", False, False, False),
        ("2.5e-6\n", "-7.5e-6\n", False, True, False),
        ("123456789012345678901234567890.00001 1\n", "123456789012345678901234567890 1\n", False, True, False),
        ("123456789012345678901234567890.000011\n", "123456789012345678901234567890\n", False, False, False),
        ("50000000000000000\n", "50000000000000001\n", False, False, False),
        ("inf\n", "1e400\n", False, False, False),
        ("1e999999999\n", "-1e999999999\n", False, False, False),
        # NaN never matches as a number, but an identical line is an identical line
        ("nan\n", "nan\n", True, True, True),
        ("NaN\n", "nan\n", False, False, False),
        ("1 nan\n", "1.0 nan\n", False, False, False),
        ("sNaN\n", "snan\n", False, False, False),
        # true/false in any case: Multi-LCB only
        ("True\n", "true\n", False, True, False),
        ("YES\nFALSE\n", "YES\nfalse\n", False, True, False),
        ("true\n", "false\n", False, False, False),
        ("True False\n", "true false\n", False, False, False),
        ("Yes\n", "yes\n", False, False, False),
        # non-numbers
        ("abc\n", "abd\n", False, False, False),
        ("1 a\n", "1.0 a\n", False, False, False),
        ("0x10\n", "16\n", False, False, False),
    ],
)
def test_compare(got: str, expected: str, exact: bool, lenient: bool, lcb: bool) -> None:
    assert compare(EXACT, got, expected) is exact
    assert compare(LENIENT, got, expected) is lenient
    assert compare(LCB, got, expected) is lcb


def test_exact_keeps_everything_but_trailing_whitespace() -> None:
    assert compare(EXACT, "a b\n\tc \n", "a b\n\tc")
    assert not compare(EXACT, "a b\n\tc \n", "a b\n c")
    assert not compare(EXACT, "a  b", "a b")


@pytest.mark.parametrize(
    ("stdin", "lenient"),
    [("1 2", "1 2\n"), ("1 2\n", "1 2\n"), ("", "\n"), ("a\r\n", "a\r\n"), ("a\n\n", "a\n\n"), ("a\r", "a\r\n")],
)
def test_stdin(stdin: str, lenient: str) -> None:
    assert stdin_for(LENIENT, stdin) == lenient
    assert stdin_for(LCB, stdin) == stdin
    assert stdin_for(EXACT, stdin) == stdin
