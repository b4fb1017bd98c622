"""The reward server as a NeMo Gym 0.4 resources server: `ng_run` starts this file (configs/reward_server.yaml).

`/verify` grades the rollout's last assistant message against the problem its task row carries
(integrations/nemo_gym.py: the rows, the grading, what an infra verdict does).
"""

from __future__ import annotations

from typing import Any

from nemo_gym.base_resources_server import (
    BaseResourcesServerConfig,
    BaseRunRequest,
    BaseVerifyRequest,
    BaseVerifyResponse,
    SimpleResourcesServer,
)
from pydantic import ConfigDict

from integrations import nemo_gym


class RewardServerConfig(BaseResourcesServerConfig):
    reward_server: str | None = None
    """The reward server's address (any client target); unset: $REWARD_SERVER."""


class ProblemRunRequest(BaseRunRequest):
    problem: dict[str, Any]
    """The task row's problem, as benchmarks.problem_jsonl.row writes it."""


class ProblemVerifyRequest(ProblemRunRequest, BaseVerifyRequest):
    pass


class ProblemVerifyResponse(BaseVerifyResponse):
    model_config = ConfigDict(extra="allow")   # an infra verdict's failure class, a key pydantic cannot declare
    verdict: str
    detail: str
    infra: bool


class RewardServerResourcesServer(SimpleResourcesServer):
    config: RewardServerConfig

    async def verify(self, body: ProblemVerifyRequest) -> ProblemVerifyResponse:
        answer = nemo_gym.last_assistant_text(body.response.model_dump(mode="json")["output"])
        graded = await nemo_gym.grade(body.problem, answer, self.config.reward_server)
        return ProblemVerifyResponse.model_validate(body.model_dump() | graded)

    def compute_metrics(self, tasks: list[list[dict[str, Any]]]) -> dict[str, Any]:
        """`mean/graded_reward`: the mean over the rollouts the model was graded on (NeMo Gym's `mean/reward`
        counts an infra rollout's 0.0; its `mean/infra` is the infra rate)."""
        graded = [rollout["reward"] for task in tasks for rollout in task if not rollout.get("infra")]
        return {"mean/graded_reward": sum(graded) / len(graded)} if graded else {}


if __name__ == "__main__":
    RewardServerResourcesServer.run_webserver()
