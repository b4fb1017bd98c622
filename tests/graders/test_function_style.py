"""MultiPL-E program assembly (prompt + completion cut at the earliest stop token + "\\n" + tests), and the
harnesses that prove the tests ran to the end."""

from __future__ import annotations

import dataclasses
import re

import pytest

from reward_server.graders.function_style import (
    FunctionProgram,
    assemble_program,
    cut_at_stop_tokens,
    function_program,
    harnessed,
)
from sandboxes.languages import Harness, language_from_entry
from sandboxes.languages.samples import load_samples
from tests.language_table import load_table

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


# The end-of-tests harnesses (docs/guards.md): program text only here; tests/test_reward_hacks.py runs them.

TABLE = load_table()
GUARDED = sorted(lang.key for lang in TABLE if lang.harness)


@pytest.mark.parametrize("key", GUARDED)
def test_every_guarded_language_guards_its_samples(key: str) -> None:
    sample = load_samples()[key].function
    program = function_program(TABLE.resolve(key), sample.prompt, sample.completion, (), sample.tests)
    assert re.fullmatch(r"[0-9a-f]{32}", program.marker)
    assert program.marker in program.source + "".join(program.files.values()) + program.tests


def test_each_harnessed_run_gets_a_fresh_marker() -> None:
    """In the program's own process the marker is within its reach: each run has one of its own."""
    cpp = dataclasses.replace(TABLE.resolve("cpp"), split=None)
    markers = {function_program(cpp, "long f() {\n", "", (), "int main() { return 0; }\n").marker for _ in range(20)}
    assert len(markers) == 20


def test_a_split_s_marker_is_the_problem_s_and_never_on_the_program_s_side() -> None:
    """Split, the marker is where the program never reaches: the same for every completion of a problem (its tests'
    side is built once), another for another problem, and in no program's source."""
    cpp = TABLE.resolve("cpp")
    tests = "int main() { assert(f() == 1); }\n"
    group = [function_program(cpp, "long f() {\n", f"  return {n};\n}}\n", (), tests) for n in range(5)]
    assert len({program.marker for program in group}) == 1 and len({program.tests for program in group}) == 1
    assert all(program.marker not in program.source for program in group)
    other = function_program(cpp, "long f() {\n", "  return 1;\n}\n", (), tests.replace("1", "2"))
    assert re.fullmatch(r"[0-9a-f]{32}", other.marker) and other.marker != group[0].marker


def test_python_tests_are_a_source_of_their_own_that_the_program_s_lacks() -> None:
    """The program's side: the prompt, the completion cut at its stop tokens, the dispatcher; the tests' side: the
    prompt's helpers, the stub in the entry function's place, the tests and the marker (split_tests.py)."""
    python = TABLE.resolve("python")
    prompt = "import math\n\ndef helper():\n    return 2\n\ndef f():\n    \"\"\"doc 0815\"\"\"\n"
    program = function_program(python, prompt, "    return 1\n\ndef g():\n", ["\ndef"],
                               "assert f() == 1  # tests tests-4711-x\n")
    assert program.source.startswith(python.split.prologue + prompt + "    return 1\n\n")
    assert "tests-4711-x" not in program.source and program.marker not in program.source
    assert "def g" not in program.source
    assert program.tests.startswith("import math\n\ndef helper():\n    return 2\n\n")
    assert "return 1" not in program.tests and "0815" not in program.tests
    assert "tests-4711-x" in program.tests and program.marker in program.tests
    tests = program.tests
    assert tests.index("def f(*args)") < tests.index("tests-4711-x") < tests.rindex(program.marker)


def test_tests_no_harness_fits_run_as_multipl_e_assembles_them() -> None:
    julia = TABLE.resolve("julia")
    assert function_program(julia, "p", "c", (), "t") == FunctionProgram("pc\nt")


def test_cpp_s_program_side_ends_with_the_brace_its_tests_begin_with() -> None:
    """MultiPL-E's layout: the completion leaves the function open and the tests close it (the split's
    program_end): the program's side gets that brace, the tests' side the stub in the function's place."""
    cpp = TABLE.resolve("cpp")
    prompt = "#include<bits/stdc++.h>\nlong add(long x, long y) {\n"
    tests = "}\nint main() {\n    assert(add(2, 3) == 5); // tests 4711\n}\n"
    program = function_program(cpp, prompt, "    return x + y;\n}\nint main() {", ["\n}"], tests)
    assert program.source.startswith(prompt + "    return x + y;}")
    assert "4711" not in program.source and program.marker not in program.source
    assert "4711" in program.tests and "return x + y" not in program.tests


def test_a_rewrite_applies_once_and_literally() -> None:
    harness = Harness(rewrite=(r"\bmain\b", 'main2 /* "\\n" {marker} */'), prologue="// {marker}\n",
                      epilogue="end {marker}")
    source = harnessed(harness, "program\n", "main main\n", "m")
    assert source == 'program\n// m\nmain2 /* "\\n" m */ main\n\nend m'
    assert harnessed(harness, "program\n", "no entry\n", "m") is None
    assert harnessed(Harness(when="entry", epilogue="x"), "p\n", "tests\n", "m") is None


SPLIT = sorted(lang.key for lang in TABLE if lang.split is not None)


@pytest.mark.parametrize("key", SPLIT)
def test_a_split_program_s_source_holds_neither_its_tests_nor_the_marker(key: str) -> None:
    sample = load_samples()[key].function
    tests = sample.tests + "\n" + TABLE.resolve(key).comment.format("tests 4711")
    program = function_program(TABLE.resolve(key), sample.prompt, sample.completion, (), tests)
    assert "4711" in program.tests and program.marker in program.tests
    assert "4711" not in program.source and program.marker not in program.source


@pytest.mark.parametrize(("harness", "message"), [
    ({"epilogue": "x", "prologe": "y"}, "unknown harness fields"),
    ({"rewrite": ["only a pattern"]}, "a harness rewrite is"),
    ({"when": "("}, "missing \\)"),
])
def test_the_table_refuses_malformed_harnesses(harness: dict, message: str) -> None:
    entry = {"source_file": "x", "run": ["x"], "version": ["x"], "packages": [], "harness": [harness]}
    with pytest.raises((ValueError, re.error), match=message):
        language_from_entry("x", entry)
