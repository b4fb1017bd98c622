"""The SAIR Stage 1 verdict rules: hand-written cases, the public examples, and a comparison with a
literal reading of the rules on generated responses."""

from __future__ import annotations

import json
import random
import re
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.data_dir import DEFAULT as DATA_DIR
from reward_server.graders import equational
from reward_server.graders.equational import extract_verdict, grade_equation
from reward_server.verdicts import Verdict
from tests.graders.sair_reading import read_verdict

SAIR = DATA_DIR / "sair-stage1"


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        # labeled
        ("VERDICT: TRUE", True),
        ("verdict: false", False),
        ("Verdict：TRUE", True),
        ("VERDICT :   FALSE\nREASONING: ...", False),
        ("FINAL ANSWER: TRUE", True),
        ("Final Answer = false", False),
        ("ANSWER - TRUE", True),
        ("RESULT：FALSE", False),
        ("OUTPUT_RESULT=TRUE", True),
        ("so the final result - false.", False),
        ("\\[ \\text{ TRUE } \\]", True),
        ("\\text{false}", False),
        # markdown is deleted first
        ("**VERDICT: TRUE**", True),
        ("***VERDICT***: ***FALSE***", False),
        ("__VERDICT__: `TRUE`", True),
        ("VERDICT: T**RUE", True),
        # whole words only
        ("VERDICT: TRUEly so", None),
        ("VERDICT: TRUE_", None),
        ("XVERDICT: TRUE", None),
        ("MY_VERDICT: TRUE", None),
        ("VERDICT: TRUE, clearly", True),
        ("VERDICT - TRUE", None),
        ("VERDICT = TRUE", None),
        ("PREANSWER: TRUE", None),
        ("VERDICT: the answer is TRUE", None),
        # Unicode case folding, as in Python's re.IGNORECASE
        ("VERDICT: falſe", False),
        ("F\u0131nAL AN\u017fWER: TRUE", True),
        # instruction text is skipped
        ("VERDICT: TRUE or FALSE", None),
        ("VERDICT: TRUE or", None),
        ("VERDICT: TRUE OR FALSE\nVERDICT: FALSE", False),
        ("VERDICT: FALSE\nVERDICT: TRUE/FALSE", False),
        ("VERDICT: TRUE / false", None),
        ("VERDICT: TRUE ordinarily", True),
        ("VERDICT: TRUE /x", True),
        ("VERDICT: TRUE /FALSEHOOD", True),
        ("Reply with VERDICT: TRUE or FALSE.\n\nVERDICT: TRUE", True),
        # latest labeled match wins
        ("VERDICT: TRUE\nVERDICT: FALSE", False),
        ("ANSWER: FALSE then VERDICT: TRUE", True),
        ("VERDICT: TRUE then \\text{FALSE}", False),
        ("FINAL ANSWER: FALSE ... RESULT: TRUE", True),
        # boxed beats labeled, wherever it is
        ("\\boxed{TRUE}\nVERDICT: FALSE", True),
        ("VERDICT: FALSE. \\boxed{TRUE} then \\boxed{FALSE}", False),
        ("\\\\\\boxed {true}", True),
        ("\\BOXED{False}", False),
        ("boxed{TRUE}", None),
        ("$\\boxed{\\text{TRUE}}$", True),
        ("\\boxed{\\mathbf{ \\text{FALSE} }}", False),
        ("\\boxed{\\text{\\mathrm{\\operatorname{TRUE}}}}", True),
        ("\\boxed{\\mathbf{\\mathbf{\\mathbf{\\mathbf{TRUE}}}}}", None),
        ("\\boxed{\\text{\\text{\\text{\\text{TRUE}}}}}", True),  # too deep to peel, but \text{TRUE} is labeled
        ("\\boxed{ (TRUE). }", True),
        ("\\boxed{$FALSE$}", False),
        ("\\boxed{answer}\nVERDICT: TRUE", True),
        ("\\boxed{\\text{Answer}}", None),
        ("\\boxed{TRUE or FALSE}", None),
        ("\\boxed{\\mathrm{TRUE}\\mathrm{FALSE}}", None),
        ("\\boxed{T{RU}E}", None),
        ("\\boxed{TRUE", None),
        ("\\boxed{TRUE\nVERDICT: FALSE", False),
        ("\\boxed{\\boxed{FALSE}}", False),
        ("\\boxed{{TRUE}}", None),
        # line kind: first or last non-empty line
        ("TRUE", True),
        ("  false.  ", False),
        ("Reasoning here.\n\nTRUE!", True),
        ("FALSE\nbecause the magma of size 2 ...", False),
        ("TRUE\nreasoning\nFALSE", False),
        ("FALSE\nreasoning\nTRUE?!", True),
        ("Final Answer: TRUE\n", True),
        ("FINAL ANSWER - false", False),
        ("reasoning\nTRUE.\nmore reasoning", None),
        ("TRUE . !", None),
        ("The answer is TRUE", None),
        ("TRUE\r\nsomething", True),
        ("something\rFALSE", False),
        ("TRUE\u2028something", True),
        ("labeled wins: VERDICT: FALSE\nTRUE", False),
        # nothing
        ("", None),
        ("   \n\t ", None),
        ("I cannot decide.", None),
        ("It is true that x = x, but false that x = y.", None),
    ],
)
def test_extract_verdict(response: str, expected: bool | None) -> None:
    assert extract_verdict(response) is expected
    assert read_verdict(response) is expected


def test_grade_equation_verdicts() -> None:
    assert grade_equation("VERDICT: TRUE", True) == (Verdict.PASS, "TRUE")
    assert grade_equation("VERDICT: TRUE", False) == (Verdict.WRONG_ANSWER, "TRUE")
    assert grade_equation("\\boxed{false}", False) == (Verdict.PASS, "FALSE")
    assert grade_equation("\\boxed{false}", True) == (Verdict.WRONG_ANSWER, "FALSE")
    assert grade_equation("no idea", True) == (Verdict.NO_VERDICT, "")
    assert grade_equation("VERDICT: TRUE or FALSE", False) == (Verdict.NO_VERDICT, "")


def _problems() -> list[dict]:
    return [json.loads(line) for line in (SAIR / "problems_hard3_20.jsonl").read_text().splitlines() if line]


def _prompt(problem: dict) -> str:
    template = (SAIR / "example_complete_prompt.txt").read_text()
    return template.replace("{{ equation1 }}", problem["equation1"]).replace("{{ equation2 }}", problem["equation2"])


def test_public_prompt_has_no_verdict_of_its_own() -> None:
    for problem in _problems():
        assert extract_verdict(_prompt(problem)) is None


@pytest.mark.parametrize("problem", _problems(), ids=lambda p: p["id"])
def test_public_examples(problem: dict) -> None:
    answer = problem["answer"]
    word, other = ("TRUE", "FALSE") if answer else ("FALSE", "TRUE")
    follows_format = f"VERDICT: {word}\nREASONING: {problem['equation1']} ...\nPROOF:\nCOUNTEREXAMPLE:\n"
    assert grade_equation(follows_format, answer) == (Verdict.PASS, word)
    # A model that echoes the prompt's instructions and then answers is graded on its answer.
    echoed = _prompt(problem) + "\n\n" + follows_format.replace(word, other, 1)
    assert grade_equation(echoed, answer) == (Verdict.WRONG_ANSWER, other)
    assert grade_equation(_prompt(problem), answer) == (Verdict.NO_VERDICT, "")


def test_case_folding_matches_re_ignorecase_for_every_code_point() -> None:
    """The keyword pre-search folds case with str.lower() plus three fixes; it must agree with
    re.IGNORECASE, character for character, on every letter it searches for."""
    every = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    folded = equational._fold(every)
    assert len(folded) == len(every)
    for letter in set("".join(equational._LABEL_WORDS) + "truefalse"):
        by_re = {m.start() for m in re.finditer(re.escape(letter), every, re.IGNORECASE)}
        by_fold = {m.start() for m in re.finditer(re.escape(letter), folded)}
        assert by_re == by_fold, letter


_FRAGMENTS = [
    "VERDICT", "verdict", "Verdict", "FINAL", "ANSWER", "answer", "FINAL ANSWER", "RESULT", "OUTPUT_RESULT",
    "output_", "X", "x", "_", "my", ":", "：", "=", "-", "/", " ", "  ", "\t", "\n", "\r", "\r\n", "\u2028", "\x1c",
    "\x0b", "\xa0", "TRUE", "FALSE", "true", "False", "TRUEly", "falſe", "\u017f", "\u0131", "\u0130",
    "or", "OR", "ord",
    "\\boxed{", "\\\\boxed {", "\\BOXED{", "boxed{", "{", "}", "\\text{", "\\mathbf{", "\\mathrm{",
    "\\operatorname{", "\\text", "answer}", "**", "***", "*", "__", "`", ".", "!", "?", ",", "$", "(", ")",
    "[", "]", ";", "1", "é", "so the result is", "It holds.",
]


_WORDS = ["TRUE", "FALSE", "true", "False", "falſe", "answer", "maybe"]
_SPACES = ["", " ", "  ", "\t", "\n", "\xa0"]
_LABELS = ["VERDICT", "verdict", "FINAL ANSWER", "Final  Answer", "ANSWER", "RESULT", "OUTPUT_RESULT"]
_TRAILERS = ["", " or FALSE", " or", "  OR\n", " ordinary", "/TRUE", " / false", "/ x", "ly", "_", ".", "\n"]
_WRAPPERS = ["\\text{", "\\mathbf {", "\\mathrm{", "\\operatorname{", "{", " $", "("]


def _labeled_part(rng: random.Random) -> str:
    return "".join([
        rng.choice(["", " ", "\n", "x", "_", "my "]), rng.choice(_LABELS), rng.choice(_SPACES),
        rng.choice([":", "：", "=", "-", " "]), rng.choice(_SPACES), rng.choice(_WORDS), rng.choice(_TRAILERS),
    ])


def _boxed_part(rng: random.Random) -> str:
    wrappers = rng.choices(_WRAPPERS, k=rng.randint(0, 5))
    return "".join([
        rng.choice(["\\", "\\\\", "", "\\\\\\"]), rng.choice(["boxed", "BOXED"]), rng.choice(_SPACES), "{",
        *wrappers, rng.choice(_WORDS), "}" * sum(w.endswith("{") for w in wrappers),
        rng.choice(["", ".", " ", "}", "{"]), "}",
    ])


def _line_part(rng: random.Random) -> str:
    return "".join([
        rng.choice(["\n", "\r\n", "\u2028", "\n\n  "]), rng.choice(["", "FINAL ANSWER: ", "final answer -"]),
        rng.choice(_WORDS), rng.choice(["", ".", "!?", " . ", " .!"]), rng.choice(["\n", "", "\n\t\n"]),
    ])


def _generated_responses(seed: int, count: int) -> list[str]:
    """Responses built from the constructs the rules care about, in random order and mixtures."""
    rng = random.Random(seed)
    parts = [_labeled_part, _boxed_part, _line_part, lambda r: r.choice(_FRAGMENTS)]
    structured = ["".join(rng.choice(parts)(rng) for _ in range(rng.randint(0, 12))) for _ in range(count)]
    soup = ["".join(rng.choices(_FRAGMENTS, k=rng.randint(0, 30))) for _ in range(count)]
    return structured + soup


def test_fast_reading_agrees_with_literal_reading() -> None:
    for response in _generated_responses(seed=20240611, count=4000):
        assert extract_verdict(response) is read_verdict(response), response


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200), st.sampled_from(_FRAGMENTS), st.text(max_size=50))
def test_agreement_on_arbitrary_text(prefix: str, fragment: str, suffix: str) -> None:
    response = prefix + fragment + suffix
    assert extract_verdict(response) is read_verdict(response)


@pytest.mark.timeout(60)  # a hang guard, not a speed check: the quadratic scan took ~90 s for 20,000 repeats
def test_degenerate_repeated_boxed_is_graded_in_linear_time() -> None:
    assert extract_verdict("\\boxed{" * 200_000) is None
    assert extract_verdict("\\boxed{TRUE} " + "\\boxed{" * 200_000) is True
    assert extract_verdict("\\boxed{" * 200_000 + "FALSE}") is False  # the innermost box closes: it counts
