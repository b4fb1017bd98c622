"""SkyRL (skyrl-gym 0.4): our problems as SkyRL's data rows, and one step's grading for the env of
`integrations/skyrl_env.py` (which imports skyrl_gym; this module does not, so `integrations.problems` can write
rows where SkyRL is not installed).

SkyRL hands an env the dataset row less its prompt and env class as `extras`, with `max_turns` (its generator's
`generator.max_turns`, default 1): a row's `reward_spec.ground_truth` is the problem as the JSON of
`benchmarks.problem_jsonl.row`, and `max_turns` how many tries the model gets: after a failure that is the
model's, the next observation is the verdict and its detail, as feedback.

SkyRL's `step` is synchronous and its reward a float: a step's action is one Score call on a blocking client per
process. An infra verdict, or a server that cannot be reached, ends the episode with reward 0.0 marked `infra` in
the step's metadata and in the env's metrics (SkyRL logs their mean: the run's infra rate), and is logged.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import logging
import threading
from typing import Any

from benchmarks import problem_jsonl
from benchmarks.problem import Problem
from reward_server.client import CallFailed, RewardClient, ServerUnavailable, server_address
from reward_server.pb import reward_pb2
from reward_server.verdicts import Verdict

log = logging.getLogger(__name__)

CALLER = "skyrl"
ENV_CLASS = "reward_server"   # the id docs/integrations.md registers the env under, and each row names

_ids = itertools.count()
_clients: dict[str, RewardClient] = {}
_clients_lock = threading.Lock()   # SkyRL steps many envs at once, from threads


def dataset_row(problem: Problem) -> dict[str, Any]:
    """One row of SkyRL's RL data: the chat, the env that grades it, the problem as its ground truth."""
    return {"data_source": problem.benchmark, "prompt": problem.chat, "env_class": ENV_CLASS,
            "reward_spec": {"method": "rule", "ground_truth": json.dumps(problem_jsonl.row(problem))},
            "extra_info": {"problem_id": problem.id}}


@dataclasses.dataclass(frozen=True)
class Graded:
    reward: float
    verdict: str
    detail: str
    infra: bool

    @property
    def passed(self) -> bool:
        return self.verdict == Verdict.PASS.name

    def feedback(self) -> str:
        """The next observation of a multi-turn episode: what went wrong, in the server's words."""
        return f"Your answer was graded {self.verdict}" + (f": {self.detail}" if self.detail else ".")


def problem_of(extras: dict[str, Any]) -> Problem:
    return problem_jsonl.problem(json.loads(extras["reward_spec"]["ground_truth"]), "skyrl",
                                 "the row's reward_spec.ground_truth")


def _client(server: str | None) -> RewardClient:
    address = server_address(server)
    key = address if isinstance(address, str) else ",".join(address)
    with _clients_lock:
        if key not in _clients:
            _clients[key] = RewardClient(address)
        return _clients[key]


def grade(problem: Problem, action: str, server: str | None) -> Graded:
    """The server's verdict on one action (a request it refuses as malformed raises: the data's fault)."""
    candidate = problem.candidate(f"{problem.id}#{next(_ids)}", action)
    try:
        result, = _client(server).score([candidate], priority=reward_pb2.TRAINING, caller=CALLER)
    except (ServerUnavailable, CallFailed) as error:
        log.error("reward server failed, %s scored as infra: %s", problem.id, error)
        return Graded(0.0, f"INFRA_{error.code.name}", str(error), True)
    verdict = Verdict[reward_pb2.Verdict.Name(result.verdict)]
    if verdict.is_infra:
        log.error("reward server withheld %s's reward: %s: %s", problem.id, verdict.name, result.detail)
        return Graded(0.0, verdict.name, result.detail, True)
    return Graded(result.reward, verdict.name, result.detail, False)
