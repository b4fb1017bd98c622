"""The value kinds a call-based test holds (what decides which harness may pose it) and how a reported result is
read back and compared: Python's `==` on plain data, tuples, sets and dicts kept apart as LiveCodeBench keeps them."""

from __future__ import annotations

import pytest

from benchmarks.call_values import argument_lines, kinds
from reward_server.graders.call_based import judge
from reward_server.verdicts import Verdict


@pytest.mark.parametrize(("value", "expected"), [
    (3, {"int"}), (2**53, {"int"}), (2**53 + 1, {"long"}), (-(2**63), {"long"}), (2**63, {"bigint"}),
    (1.5, {"float"}), (float("inf"), {"nonfinite"}), (True, {"bool"}), ("a", {"string"}), (None, {"null"}),
    ([], {"list"}), ([1, 2.5], {"list", "int", "float"}), ([[1], []], {"list", "int"}),
    ([1, "a"], {"list", "int", "string", "mixed_list"}), ([[1], ["a"]], {"list", "int", "string", "mixed_list"}),
    ([1, None], {"list", "int", "null", "mixed_list"}), ({"k": [1]}, {"object", "list", "int"}),
])
def test_kinds(value, expected: set[str]) -> None:
    assert kinds(value) == expected


def test_argument_lines_ignore_one_final_newline() -> None:
    assert argument_lines("[1, 2]\n3") == argument_lines("[1, 2]\n3\n") == ["[1, 2]", "3"]
    assert argument_lines("1\n\n") == ["1", ""]


@pytest.mark.parametrize(("report", "expected", "verdict"), [
    ("[0, 1]", [0, 1], Verdict.PASS),
    ("2", 2.0, Verdict.PASS),
    ("1", True, Verdict.PASS),                      # Python's 1 == True
    ("2.5000000000000004", 2.5, Verdict.WRONG_ANSWER),
    ('[{"t": [1, 2]}]', [[1, 2]], Verdict.WRONG_ANSWER),   # a nested tuple is no list
    ('{"s": [1, 2]}', [1, 2], Verdict.WRONG_ANSWER),
    ('{"d": [["a", 1]]}', {"a": 1}, Verdict.PASS),
    ('{"d": [[1, 1]]}', {"1": 1}, Verdict.WRONG_ANSWER),  # an int key is not the JSON string key
    ('{"o": "Anything"}', None, Verdict.WRONG_ANSWER),    # not plain data: equal to nothing
    ("NaN", float("nan"), Verdict.WRONG_ANSWER),
    ("not json", 1, Verdict.WRONG_ANSWER),
])
def test_a_reported_result_is_compared_by_python_equality(report: str, expected, verdict: Verdict) -> None:
    assert judge(f"the program's own output\nMARK{report}\n", "MARK", expected)[0] is verdict


def test_the_last_report_counts_and_a_missing_one_is_wrong() -> None:
    assert judge("MARK1\nMARK2\n", "MARK", 2) == (Verdict.PASS, "")
    assert judge("2\n", "MARK", 2)[0] is Verdict.WRONG_ANSWER
