"""Held-out evaluation during GRPO: every N steps, generate with the current policy, score, log pass@1.

Generation uses transformers' `generate` on the unwrapped policy (each process takes a shard of the prompts,
so it also runs under DDP / ZeRO); the main process scores everything through the reward server at EVAL
priority (training batches go first) and the metrics are logged through the trainer, under names that
cannot collide between sets:
  heldout/<set>/pass@1, heldout/<set>/<language>/pass@1, heldout/<set>/infra_rate, heldout/<set>/problems
Infra verdicts are not failures: they are left out of pass@1 and counted in infra_rate instead.
"""

from __future__ import annotations

import collections
import logging
from collections.abc import Mapping, Sequence
from typing import Any

import datasets
import torch
from accelerate.utils import broadcast_object_list, gather_object
from transformers import TrainerCallback

from reward_server.client import RewardClient, server_address
from reward_server.pb import reward_pb2
from reward_server.verdicts import Verdict
from trainers.datasets import from_row

log = logging.getLogger(__name__)


class HeldOutEval(TrainerCallback):
    def __init__(self, trainer: Any, sets: Mapping[str, datasets.Dataset],
                 server: str | Sequence[str] | None = None, *, every_steps: int, max_new_tokens: int,
                 samples_per_problem: int = 1, temperature: float = 0.0, batch_size: int = 8,
                 caller: str = "grpo-heldout") -> None:
        if every_steps < 1:
            raise ValueError(f"every_steps must be >= 1, got {every_steps}")
        if temperature == 0.0 and samples_per_problem > 1:
            raise ValueError("greedy decoding gives one answer per problem: set a temperature for several samples")
        self.trainer = trainer
        self.sets = dict(sets)
        self.every_steps = every_steps
        self.max_new_tokens = max_new_tokens
        self.samples_per_problem = samples_per_problem
        self.temperature = temperature
        self.batch_size = batch_size
        self.caller = caller
        self._client = RewardClient(server_address(server)) if trainer.accelerator.is_main_process else None

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if state.global_step % self.every_steps == 0:
            # Trainer.log clears control.should_log: keep the step's own training log entry
            should_log = control.should_log
            self.evaluate()
            control.should_log = should_log

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if self._client is not None:
            self._client.close()

    def evaluate(self) -> dict[str, float]:
        """Generate on every held-out set, score, log through the trainer; returns the logged metrics."""
        wrapped = self.trainer.model
        was_training = wrapped.training
        wrapped.eval()  # also tells GRPOTrainer.log not to flush its pending train metrics into this entry
        try:
            model = self.trainer.accelerator.unwrap_model(wrapped)
            completions = {name: self._generate(model, rows) for name, rows in self.sets.items()}
            metrics: dict[str, float] = {}
            if self._client is not None:
                for name, rows in self.sets.items():
                    metrics.update(score_heldout(self._client, name, rows, completions[name], caller=self.caller))
            metrics = broadcast_object_list([metrics])[0]
            self.trainer.log(dict(metrics))
        finally:
            wrapped.train(was_training)
        log.info("held-out at step %d: %s", self.trainer.state.global_step, metrics)
        return metrics

    @torch.no_grad()
    def _generate(self, model: Any, rows: datasets.Dataset) -> list[list[str]]:
        """`samples_per_problem` completions for every row, in row order, on every process."""
        tokenizer = self.trainer.processing_class
        accelerator = self.trainer.accelerator
        texts = [tokenizer.apply_chat_template(row["prompt"], add_generation_prompt=True, tokenize=False)
                 for row in rows]
        sampling = {"do_sample": True, "temperature": self.temperature} if self.temperature > 0 else {
            "do_sample": False}
        produced: list[tuple[int, list[str]]] = []
        with accelerator.split_between_processes(list(range(len(texts))), apply_padding=True) as mine:
            for start in range(0, len(mine), self.batch_size):
                batch = mine[start:start + self.batch_size]
                encoded = tokenizer([texts[i] for i in batch], return_tensors="pt", padding=True,
                                    padding_side="left", add_special_tokens=False).to(model.device)
                output = model.generate(**encoded, max_new_tokens=self.max_new_tokens,
                                        num_return_sequences=self.samples_per_problem,
                                        pad_token_id=tokenizer.pad_token_id, **sampling)
                decoded = tokenizer.batch_decode(output[:, encoded["input_ids"].shape[1]:],
                                                 skip_special_tokens=True)
                n = self.samples_per_problem
                produced.extend((i, decoded[k * n:(k + 1) * n]) for k, i in enumerate(batch))
        by_row = dict(gather_object(produced))  # padding repeats a row: the dict keeps one copy
        return [by_row[i] for i in range(len(texts))]


def score_heldout(client: RewardClient, name: str, rows: datasets.Dataset, completions: list[list[str]], *,
                  caller: str = "grpo-heldout") -> dict[str, float]:
    """Metrics of one held-out set from its completions (`completions[r]` are row r's samples)."""
    batch, owners = [], []
    for r, (row, texts) in enumerate(zip(rows, completions, strict=True)):
        problem = from_row(row)
        for s, text in enumerate(texts):
            batch.append(problem.candidate(f"{problem.id}#{s}", text))
            owners.append(r)
    results = client.score(batch, priority=reward_pb2.EVAL, caller=caller)
    graded: dict[int, list[bool]] = collections.defaultdict(list)
    infra = 0
    for owner, result in zip(owners, results, strict=True):
        if Verdict[reward_pb2.Verdict.Name(result.verdict)].is_infra:
            infra += 1
        else:
            graded[owner].append(result.verdict == reward_pb2.PASS)
    # pass@1 per problem is c/n (the unbiased pass@k estimator at k=1), then averaged over problems
    per_problem = {owner: sum(passed) / len(passed) for owner, passed in graded.items()}
    prefix = f"heldout/{name}"
    metrics = {f"{prefix}/infra_rate": infra / len(batch) if batch else 0.0,
               f"{prefix}/problems": float(len(per_problem))}
    if per_problem:
        metrics[f"{prefix}/pass@1"] = sum(per_problem.values()) / len(per_problem)
    by_language: dict[str, list[float]] = collections.defaultdict(list)
    for owner, score in per_problem.items():
        if rows[owner]["language"]:
            by_language[rows[owner]["language"]].append(score)
    for language, scores in sorted(by_language.items()):
        metrics[f"{prefix}/{language}/pass@1"] = sum(scores) / len(scores)
    return metrics
