"""NeMo Gym 0.4 (and NeMo-RL, which trains on its environments): our server as a resources server's verifier.

The server itself is `integrations/nemo_gym_servers/resources_servers/reward_server/app.py`, in NeMo Gym's layout
(its config in `configs/reward_server.yaml` beside it), because `ng_run` starts a server by that path; this module
holds what needs no NeMo Gym: the task rows and the grading of one rollout, so `integrations.problems` can write
rows where NeMo Gym is not installed.

A task row carries its problem (`benchmarks.problem_jsonl.row`) beside `responses_create_params`; NeMo Gym's
simple agent passes the row's fields on to `/verify`, whose calls a process serves concurrently and which go to the
server through the micro-batcher (`integrations.batching`), a few Score calls for many rollouts.

An infra verdict, or a server that cannot be reached, is not the model's doing. NeMo Gym 0.4 has no `mask_sample`;
its rollout collection writes a result carrying `_ng_failure_class` to the failures sidecar
(`<output>_failures.jsonl`) instead of the rollouts, and retries it on resume (`NEMO_GYM_MAX_ROLLOUT_ATTEMPTS`): so
an infra response carries that key, `infra` true and the verdict and detail, and its `reward` (a field NeMo Gym
requires) is never read as the model's.
"""

from __future__ import annotations

import itertools
from typing import Any

from benchmarks import problem_jsonl
from benchmarks.problem import Problem
from integrations import batching
from reward_server.client import CallFailed, ServerUnavailable
from reward_server.pb import reward_pb2
from reward_server.verdicts import Verdict

CALLER = "nemo-gym"
AGENT = "reward_server_simple_agent"   # the agent of configs/reward_server.yaml, which each row names
FAILURE_CLASS_KEY = "_ng_failure_class"   # NeMo Gym 0.4's rollout collection: this result is a failure
FAILURE_CLASS = "reward_server_infra"

_ids = itertools.count()


def dataset_row(problem: Problem) -> dict[str, Any]:
    """One NeMo Gym task: the chat as the Responses API input, the agent that runs it, the problem to grade."""
    return {"responses_create_params": {"input": problem.chat},
            "agent_ref": {"type": "responses_api_agents", "name": AGENT},
            "problem": problem_jsonl.row(problem)}


def last_assistant_text(output: list[dict[str, Any]]) -> str:
    """The text of the rollout's last assistant message (earlier turns and tool calls are not the answer)."""
    messages = [item for item in output if item.get("type") == "message" and item.get("role") == "assistant"]
    if not messages:
        return ""
    return "".join(part.get("text", "") for part in messages[-1].get("content", [])
                   if part.get("type") == "output_text")


def _infra(verdict: str, detail: str) -> dict[str, Any]:
    return {"reward": 0.0, "verdict": verdict, "detail": detail, "infra": True, FAILURE_CLASS_KEY: FAILURE_CLASS}


async def grade(problem_row: dict[str, Any], completion: str, server: str | None) -> dict[str, Any]:
    """`reward`, `verdict`, `detail`, `infra` (and the failure class when infra) for one rollout's answer."""
    problem = problem_jsonl.problem(problem_row, "nemo-gym", "the task row's problem")
    candidate = problem.candidate(f"{problem.id}#{next(_ids)}", completion)
    try:
        result = await batching.score(candidate, address=server, caller=CALLER)
    except (ServerUnavailable, CallFailed) as error:   # a request the server refused stays the data's error
        return _infra(f"INFRA_{error.code.name}", str(error))
    verdict = Verdict[reward_pb2.Verdict.Name(result.verdict)]
    if verdict.is_infra:
        return _infra(verdict.name, result.detail)
    return {"reward": result.reward, "verdict": verdict.name, "detail": result.detail, "infra": False}
