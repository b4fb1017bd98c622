"""verl 0.9: `compute_score`, a custom reward function for its reward loop, and our problems as verl's data rows.

verl loads `reward.custom_reward_function.path` (`pkg://integrations.verl`) and takes `name` (`compute_score`)
from it. Its reward manager (`naive`, `dapo` or `rate_limited`) awaits an `async def` function on its worker's
event loop, once per sample and all of a worker's samples at once, with `data_source`, `solution_str` (the
decoded response), `ground_truth` (the row's `reward_model.ground_truth`: here the problem as the JSON of
`benchmarks.problem_jsonl.row`) and `extra_info`, plus `reward.custom_reward_function.reward_kwargs`. Those calls
go to the server through the micro-batcher (`integrations.batching`), a handful of Score calls per step.

verl takes `score` as the reward and keeps every key of the dict as a column, named after the first sample's
keys, so every sample answers the same four. It has no per-sample mask: an infra verdict (the server withheld
the reward), or a server that cannot be reached, scores 0 with `infra` true (`on_infra="zero"`), or raises
`InfraFailure`, which stops the step (`on_infra="raise"`). This module imports nothing of verl: verl loads it.
"""

from __future__ import annotations

import functools
import itertools
import json
from typing import Any

from benchmarks import problem_jsonl
from benchmarks.problem import Problem
from integrations import batching
from reward_server.client import RequestRejected, RewardServerError
from reward_server.pb import reward_pb2
from reward_server.verdicts import Verdict

CALLER = "verl"
ON_INFRA = ("zero", "raise")
OPTIONS = {"server", "on_infra", "partial_credit"}
# what verl itself adds to the call when a reward model is configured; this function has no use for them
VERL_KWARGS = {"reward_router_address", "reward_model_tokenizer"}

_ids = itertools.count()


class InfraFailure(RuntimeError):
    """The server withheld a sample's reward, or could not be reached (on_infra="raise")."""


def dataset_row(problem: Problem) -> dict[str, Any]:
    """One row of verl's RL data: the chat verl renders with the model's template, and the problem to grade."""
    return {"data_source": problem.benchmark, "prompt": problem.chat,
            "ability": "math" if problem.kind == "equation" else "code",
            "reward_model": {"style": "rule", "ground_truth": json.dumps(problem_jsonl.row(problem))},
            "extra_info": {"problem_id": problem.id}}


@functools.lru_cache(maxsize=4096)   # a group's samples share their ground truth; a problem's tests can be large
def _problem(ground_truth: str, data_source: str) -> Problem:
    return problem_jsonl.problem(json.loads(ground_truth), data_source, f"ground_truth of a {data_source} row")


def columns(result: reward_pb2.ScoreResult, partial_credit: bool) -> dict[str, Any]:
    """The reward and what verl logs beside it; `pass_fraction` is of the tests run (all of them with partial
    credit, else 1.0 for PASS and 0.0 for the rest); a withheld reward scores 0.0."""
    verdict = Verdict[reward_pb2.Verdict.Name(result.verdict)]
    passed = (sum(test.verdict == reward_pb2.PASS for test in result.tests) / len(result.tests) if result.tests
              else float(verdict is Verdict.PASS))
    score = 0.0 if verdict.is_infra else passed if partial_credit and result.tests else result.reward
    return {"score": score, "verdict": verdict.name, "infra": verdict.is_infra, "pass_fraction": passed}


async def compute_score(data_source: str, solution_str: str, ground_truth: str, extra_info: dict | None = None,
                        **reward_kwargs: Any) -> dict[str, Any]:
    """`{"score", "verdict", "infra", "pass_fraction"}` for one response.

    reward_kwargs: `server` (the address; unset: $REWARD_SERVER), `on_infra` ("zero" or "raise"),
    `partial_credit` (code: the fraction of tests passed, every test run, instead of 1/0)."""
    unknown = set(reward_kwargs) - OPTIONS - VERL_KWARGS
    if unknown:
        raise TypeError(f"unknown reward_kwargs {sorted(unknown)}: compute_score takes {sorted(OPTIONS)}")
    on_infra = reward_kwargs.get("on_infra", "zero")
    if on_infra not in ON_INFRA:
        raise ValueError(f"on_infra must be one of {ON_INFRA}, got {on_infra!r}")
    partial_credit = bool(reward_kwargs.get("partial_credit", False))
    problem = _problem(ground_truth, data_source)
    candidate = problem.candidate(f"{problem.id}#{next(_ids)}", solution_str,
                                  run_all_tests=partial_credit and problem.kind != "equation")
    try:
        result = await batching.score(candidate, address=reward_kwargs.get("server"), caller=CALLER)
    except RequestRejected:
        raise   # a malformed problem is the data's fault: no reward to stand in for
    except RewardServerError as error:
        if on_infra == "raise":
            raise InfraFailure(f"reward server: {error}") from error
        return {"score": 0.0, "verdict": f"INFRA_{error.code.name}", "infra": True, "pass_fraction": 0.0}
    scored = columns(result, partial_credit)
    if scored["infra"] and on_infra == "raise":
        raise InfraFailure(f"reward server withheld {problem.id}'s reward: {scored['verdict']}: {result.detail}")
    return scored
