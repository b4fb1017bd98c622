"""Held-out metrics from known completions, scored by a real server: pass@1 per set and language, infra apart."""

from __future__ import annotations

import pytest

from benchmarks.equational import EquationalProblem
from reward_server.client import RewardClient
from trainers import benchmarks
from trainers.heldout import score_heldout

ADD = {"stdin": "2 3\n", "expected_stdout": "5\n"}
SUM = "```{fence}\n{code}\n```"


def test_pass_at_1_per_set_and_language(server_address):
    lcb = [{"question_id": q, "question_content": "Print a+b.",
            "private_test_cases": [{"input": ADD["stdin"], "output": ADD["expected_stdout"], "testtype": "stdin"}]}
           for q in ("p1", "p2")]
    code = benchmarks.livecodebench(lcb, languages=["python", "ruby", "klingon"])
    by_key = {(row["problem_id"], row["language"]): [] for row in code}
    python_sum = SUM.format(fence="python", code="a, b = map(int, input().split())\nprint(a + b)")
    ruby_sum = SUM.format(fence="ruby", code="a, b = gets.split.map(&:to_i)\nputs a + b")
    by_key[("lcb/p1", "python")] = [python_sum, python_sum]                      # 2/2
    by_key[("lcb/p2", "python")] = [python_sum, "```python\nprint(4)\n```"]     # 1/2
    by_key[("lcb/p1", "ruby")] = [ruby_sum, "no code at all"]                   # 1/2
    by_key[("lcb/p2", "ruby")] = ["```ruby\nputs 4\n```", "```ruby\nputs 4\n```"]  # 0/2
    by_key[("lcb/p1", "klingon")] = ["x", "y"]                                   # infra, not a failure
    by_key[("lcb/p2", "klingon")] = ["x", "y"]
    completions = [by_key[(row["problem_id"], row["language"])] for row in code]
    equations = benchmarks.equational(
        [EquationalProblem(1, 2, "x = x", "x = y", False), EquationalProblem(2, 1, "x = y", "x = x", True)],
        "{{ equation1 }} => {{ equation2 }}?")
    with RewardClient(server_address) as client:
        code_metrics = score_heldout(client, "lcb", code, completions)
        equation_metrics = score_heldout(client, "eq", equations, [["VERDICT: FALSE"], ["VERDICT: FALSE"]])
    assert code_metrics == pytest.approx({
        "heldout/lcb/pass@1": (1 + 0.5 + 0.5 + 0) / 4,
        "heldout/lcb/python/pass@1": 0.75,
        "heldout/lcb/ruby/pass@1": 0.25,
        "heldout/lcb/infra_rate": 4 / 12,
        "heldout/lcb/problems": 4.0,
    })
    assert equation_metrics == pytest.approx({
        "heldout/eq/pass@1": 0.5, "heldout/eq/infra_rate": 0.0, "heldout/eq/problems": 2.0})
