"""MultiPL-E program assembly: prompt + completion cut at the earliest stop token + "\\n" + tests."""

from __future__ import annotations

import pytest

from reward_server.graders.function_style import assemble_program, cut_at_stop_tokens

PY_STOPS = ["\ndef", "\n#", "\nif", "\nclass"]


def test_assembles_prompt_completion_and_tests() -> None:
    prompt = "def add(a, b):\n"
    completion = "    return a + b\n\ndef unused():\n    pass\n"
    tests = "assert add(1, 2) == 3\n"
    assert assemble_program(prompt, completion, PY_STOPS, tests) == (
        "def add(a, b):\n    return a + b\n" + "\n" + "assert add(1, 2) == 3\n"
    )


@pytest.mark.parametrize(
    ("completion", "stops", "cut"),
    [
        ("abc", [], "abc"),
        ("abc", ["x"], "abc"),
        ("a1b2c", ["2", "1"], "a"),
        ("a1b2c", ["1", "2"], "a"),
        ("a12", ["12", "1"], "a"),
        ("a\nif x", ["\nif", "\n"], "a"),
        ("stop", ["stop"], ""),
        ("abc", ["", "c"], "ab"),
        ("abc", [""], "abc"),
        ("", ["x"], ""),
        ("a}\n}\nfunc", ["\n}"], "a}"),
    ],
)
def test_cut_at_earliest_stop_token(completion: str, stops: list[str], cut: str) -> None:
    assert cut_at_stop_tokens(completion, stops) == cut


def test_no_stop_tokens_keeps_the_completion() -> None:
    assert assemble_program("p", "c", (), "t") == "pc\nt"
