"""Verified counterexamples: the magma in a FALSE answer's COUNTEREXAMPLE section must satisfy equation 1 and
violate equation 2. Tables in every accepted form, every way a table can be wrong, a differential check against a
brute force over the implication data shipped in benchmarks/data, and the rule through a real server."""

from __future__ import annotations

import itertools
import re

import grpc
import numpy as np
import pytest

from benchmarks.data_dir import data_dir
from benchmarks.equational import FALSE, NUM_LAWS, TRUE, load_laws, load_outcomes
from reward_server.graders.counterexample import grade_counterexample
from reward_server.graders.laws import LawError, parse_law
from reward_server.pb import reward_pb2, reward_pb2_grpc
from reward_server.verdicts import Verdict
from tests.candidates import verdict_name

IDEMPOTENT, COMMUTATIVE = "x = x * x", "x * y = y * x"
LEFT_PROJECTION = [[0, 0], [1, 1]]   # a * b = a: idempotent, not commutative


def answer(table_text: str) -> str:
    return f"VERDICT: FALSE\nREASONING: take the left projection.\nPROOF:\nCOUNTEREXAMPLE: {table_text}\n"


@pytest.mark.parametrize("response", [
    answer("[[0, 0], [1, 1]]"),
    answer("\n[\n  [0, 0],\n  [1, 1]\n]"),
    answer("\n```\n0 0\n1 1\n```"),
    answer("\n[0, 0],\n[1, 1]"),
    answer("\n0, 0\n1, 1\nwhere row a, column b is a * b."),
    "**VERDICT:** FALSE\n\n## COUNTEREXAMPLE:\n`[[0,0],[1,1]]`\n",
    "VERDICT: FALSE\nCOUNTEREXAMPLE: a first try [[0, 1], [1, 0]]\nREASONING: no.\nCOUNTEREXAMPLE: [[0, 0], [1, 1]]",
])
def test_a_right_table_is_accepted_in_every_form(response: str) -> None:
    assert grade_counterexample(response, IDEMPOTENT, COMMUTATIVE) == (Verdict.PASS, "")


@pytest.mark.parametrize(("response", "detail"), [
    (answer("[[0, 1], [1, 0]]"),
     "equation 1 (x = x * x) fails for x = 1: the left side is 1, the right side 0"),
    (answer("[[0, 0], [0, 0]]"), "equation 1 (x = x * x) fails for x = 1"),
    (answer("[[0, 0], [0, 1]]"), "equation 2 (x * y = y * x) holds for every assignment in this 2-element magma"),
    (answer("[[0]]"), "equation 2 (x * y = y * x) holds for every assignment in this 1-element magma"),
    (answer("[[0, 0], [1, 1]"), "the table's brackets are not closed"),
    (answer("[[0, 0], [1, 1],]"), "the table is not a list of rows of integers"),
    (answer("[[0.0, 0], [1, 1]]"), "the table is not a list of rows of integers"),
    (answer("[[true, 0], [1, 1]]"), "the table is not a list of rows of integers"),
    (answer("[[0, 2], [1, 1]]"), "the entry 2 at row 0, column 1 is not an element of [0, 2)"),
    (answer("[[0, -1], [1, 1]]"), "the entry -1 at row 0, column 1 is not an element of [0, 2)"),
    (answer("[[0, 0, 0], [1, 1, 1]]"), "the table is not square: row 0 has 3 entries, and there are 2 rows"),
    (answer("\n0 0\n1"), "the table is not square: row 1 has 1 entries"),
    (answer("[[]]"), "the table is not square: row 0 has 0 entries"),
    (answer("[" + ", ".join(["[" + ", ".join(["0"] * 17) + "]"] * 17) + "]"),
     "the table has 17 rows: a magma here has 1 to 16 elements"),
    (answer("the left projection on two elements"), "no operation table in the COUNTEREXAMPLE section"),
    ("VERDICT: FALSE\nREASONING: it fails.\n", "no COUNTEREXAMPLE section"),
])
def test_a_wrong_table_is_a_bad_counterexample(response: str, detail: str) -> None:
    verdict, why = grade_counterexample(response, IDEMPOTENT, COMMUTATIVE)
    assert verdict is Verdict.BAD_COUNTEREXAMPLE and Verdict.BAD_COUNTEREXAMPLE.reward == 0.0
    assert why.startswith(detail), why


def test_the_failing_assignment_is_named_with_the_laws_variables() -> None:
    verdict, why = grade_counterexample(answer("[[1, 1], [0, 0]]"), "x * (y * z) = (x * y) * z", "x = y")
    assert verdict is Verdict.BAD_COUNTEREXAMPLE
    assert why == ("equation 1 (x * (y * z) = (x * y) * z) fails for x = 0, y = 0, z = 0: "
                   "the left side is 1, the right side 0")


def test_every_law_of_the_data_parses_and_malformed_ones_do_not() -> None:
    laws = load_laws(data_dir())
    parsed = [parse_law(law) for law in laws]
    assert max(len(law.variables) for law in parsed) == 6
    assert parse_law("x ◇ y = y ◇ x").variables == parse_law(COMMUTATIVE).variables == ("x", "y")
    for bad in ("x * y * z = x", "x = (y * z", "x = y *", "x * y", "x = y = z", "x = y + z", "",
                "x = a * (b * (c * (d * (e * f))))"):
        with pytest.raises(LawError):
            parse_law(bad)


# --- a brute force, written apart from the grader's parser and evaluator --------------------------------------

def _term(text: str):
    """A law side as nested pairs, parsed by recursive descent over characters."""
    tokens = re.findall(r"[a-z]|[()*]", text.replace("◇", "*"))

    def parse(at: int):
        def factor(at: int):
            if tokens[at] == "(":
                term, at = parse(at + 1)
                return term, at + 1
            return tokens[at], at + 1
        left, at = factor(at)
        if at < len(tokens) and tokens[at] == "*":
            right, at = factor(at + 1)
            return (left, right), at
        return left, at

    return parse(0)[0]


def _holds(law: str, table: list[list[int]]) -> bool:
    left, right = (_term(side) for side in law.split("="))
    names = sorted(set(re.findall(r"[a-z]", law)))

    def value(term, env):
        return env[term] if isinstance(term, str) else table[value(term[0], env)][value(term[1], env)]

    return all(value(left, env) == value(right, env)
               for env in (dict(zip(names, values, strict=True))
                           for values in itertools.product(range(len(table)), repeat=len(names))))


def test_differential_against_a_brute_force_over_the_implication_data() -> None:
    """Sampled pairs of the shipped matrix: every 2-element magma and some 3-element ones. The grader accepts a
    table exactly when the brute force finds equation 1 holding and equation 2 failing on it; for FALSE pairs the
    small counterexamples found by search are accepted, and a TRUE pair never gets one."""
    root = data_dir()
    laws, outcomes = load_laws(root), load_outcomes(root)
    rng = np.random.default_rng(12)
    tables = [[list(cells[:2]), list(cells[2:])] for cells in itertools.product(range(2), repeat=4)]
    tables += [rng.integers(0, 3, (3, 3)).tolist() for _ in range(8)]
    pairs = {TRUE: [], FALSE: []}
    while len(pairs[TRUE]) < 40 or len(pairs[FALSE]) < 120:
        i, j = (int(k) for k in rng.integers(0, NUM_LAWS, 2))
        pairs.get(int(outcomes[i, j]), []).append((i, j))
    counterexamples = {TRUE: 0, FALSE: 0}
    for outcome, wanted in ((FALSE, 120), (TRUE, 40)):
        for i, j in pairs[outcome][:wanted]:
            for table in tables:
                brute = _holds(laws[i], table) and not _holds(laws[j], table)
                verdict, why = grade_counterexample(answer(str(table)), laws[i], laws[j])
                assert (verdict is Verdict.PASS) == brute, (laws[i], laws[j], table, why)
                counterexamples[outcome] += brute
    assert counterexamples[TRUE] == 0
    assert counterexamples[FALSE] > 100   # most FALSE pairs have a small counterexample


# --- through the server -----------------------------------------------------------------------------------

def equation(cid: str, response: str, expected: bool, *, require: bool = True, equation1: str = IDEMPOTENT,
             equation2: str = COMMUTATIVE) -> reward_pb2.Candidate:
    return reward_pb2.Candidate(id=cid, equation=reward_pb2.EquationTask(
        response=response, expected=expected, equation1=equation1, equation2=equation2,
        require_counterexample=require))


@pytest.fixture
def stub(server_address: str):
    with grpc.insecure_channel(server_address) as channel:
        yield reward_pb2_grpc.RewardServiceStub(channel)


def test_required_counterexamples_through_the_server(stub) -> None:
    candidates = [
        equation("right", answer(str(LEFT_PROJECTION)), False),
        equation("bad", answer("[[0, 1], [1, 0]]"), False),
        equation("missing", "VERDICT: FALSE\n", False),
        equation("not-required", "VERDICT: FALSE\n", False, require=False),
        equation("true", "VERDICT: TRUE\nPROOF: ...", True),
        equation("wrong-verdict", answer(str(LEFT_PROJECTION)), True),
        equation("no-verdict", "I am not sure.", False),
    ]
    for call in (stub.Score, lambda request, **kw: list(stub.ScoreStream(request, **kw))):
        reply = call(reward_pb2.ScoreRequest(candidates=candidates), timeout=60)
        results = {r.id: r for r in (reply.results if hasattr(reply, "results") else reply)}
        verdicts = {cid: verdict_name(result) for cid, result in results.items()}
        assert verdicts == {"right": "PASS", "bad": "BAD_COUNTEREXAMPLE", "missing": "BAD_COUNTEREXAMPLE",
                            "not-required": "PASS", "true": "PASS", "wrong-verdict": "WRONG_ANSWER",
                            "no-verdict": "NO_VERDICT"}
        assert results["right"].reward == 1.0 and results["bad"].reward == 0.0
        assert results["bad"].detail.startswith("equation 1 (x = x * x) fails for x = 1")
        assert results["bad"].extracted == "FALSE" and results["bad"].index == 1


@pytest.mark.parametrize(("task", "field"), [
    (reward_pb2.EquationTask(response="x", require_counterexample=True, equation2=COMMUTATIVE), "equation1"),
    (reward_pb2.EquationTask(response="x", require_counterexample=True, equation1=IDEMPOTENT,
                             equation2="x * y * z = x"), "equation2"),
])
def test_malformed_laws_name_the_field(stub, task: reward_pb2.EquationTask, field: str) -> None:
    request = reward_pb2.ScoreRequest(candidates=[equation("ok", "VERDICT: TRUE", True),
                                                  reward_pb2.Candidate(id="x", equation=task)])
    with pytest.raises(grpc.RpcError) as info:
        stub.Score(request, timeout=30)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert info.value.details().startswith(f"candidates[1].equation.{field}:"), info.value.details()
