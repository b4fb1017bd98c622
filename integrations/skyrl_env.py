"""The SkyRL env (`BaseTextEnv`) that grades each action through the reward server; register it under
`integrations.skyrl.ENV_CLASS` (docs/integrations.md). What a step does: integrations/skyrl.py."""

from __future__ import annotations

from typing import Any

from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput

from integrations import skyrl


class RewardServerEnv(BaseTextEnv):
    def __init__(self, env_config: Any = None, extras: dict[str, Any] | None = None) -> None:
        """env_config (SkyRL's `environment.skyrl_gym.reward_server`): `server`, the address (unset:
        $REWARD_SERVER); extras: the row less its prompt and env class, and `max_turns`, the tries (SkyRL's
        generator sets it from `generator.max_turns`)."""
        super().__init__()
        extras = extras or {}
        self.problem = skyrl.problem_of(extras)
        self.server = (env_config or {}).get("server")
        self.max_turns = int(extras.get("max_turns", 1))
        self.last: skyrl.Graded | None = None

    def step(self, action: str) -> BaseTextEnvStepOutput:
        self.turns += 1
        graded = self.last = skyrl.grade(self.problem, action, self.server)
        done = graded.passed or graded.infra or self.turns >= self.max_turns
        observations = [] if done else [{"role": "user", "content": graded.feedback()}]
        return BaseTextEnvStepOutput(observations=observations, reward=graded.reward, done=done,
                                     metadata={"verdict": graded.verdict, "detail": graded.detail,
                                               "infra": graded.infra})

    def get_metrics(self) -> dict[str, Any]:
        """Averaged over a step's episodes by SkyRL: `infra` is the infra rate, `passed` the pass rate."""
        last = self.last
        return {"turns": self.turns, "infra": float(last is not None and last.infra),
                "passed": float(last is not None and last.passed)}
