"""TRL's asynchronous rollout loop (the one `AsyncGRPOTrainer` spawns) with generation replaced by fixed
completions, one list per dataset row, since generation needs a vLLM server. It lives in its own module so
the spawned child can import it; the child scores each row's completions with TRL's own `_score_group` and
puts the samples in the rollout buffer, as the real loop does."""

from __future__ import annotations

from typing import Any

from trl.experimental.async_grpo.async_rollout_worker import RolloutGroup, TrainingSequence, _AsyncRolloutLoop


class FixedCompletionsLoop(_AsyncRolloutLoop):
    def __init__(self, *, completions: list[list[str]], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.completions = completions

    def run(self) -> None:
        for group_id, (row, texts) in enumerate(zip(self.dataset, self.completions, strict=True)):
            n = len(texts)
            group = RolloutGroup(
                prompts=[row["prompt"]] * n,
                # what the real loop passes on: every dataset column but the prompt, one value per completion
                reward_kwargs={key: [row[key]] * n for key in row if key not in {"prompt", "completion",
                                                                                 "completion_ids"}},
                completions=[[{"role": "assistant", "content": text}] for text in texts],
                completions_ids=[[1]] * n,
                completions_sequences=[[TrainingSequence([1, 1], [0, 1], [0.0, 0.0], f"{group_id}/{i}")]
                                       for i in range(n)],
                tool_call_counts=[0] * n, tool_failure_counts=[0] * n, model_version=0, group_id=group_id,
                env_rewards=[None] * n, rollout_rewards=[None] * n)
            self.rollout_buffer.put(self._loop.run_until_complete(self._score_group(group)))
        # like the real loop, run until the worker stops it (its stop() waits for the child's stop watcher)
        self._loop.run_until_complete(self._stop_event.wait())
