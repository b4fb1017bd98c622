"""Run by tests/integrations/test_verl.py under verl's own venv: verl 0.9 scores responses with
integrations.verl.compute_score exactly as a training run does, nothing of it replaced.

verl's Hydra config (ppo_trainer, composed from verl's package) takes the overrides docs/integrations.md gives;
verl's RLHFDataset reads the parquet file `python -m integrations.problems --format verl` wrote; each sample is
the dataset row's chat under the tokenizer's template (the prompt, left-padded) and a response tokenized then
decoded by verl (right-padded), as rollout leaves them. A run scores the batch either in this process, with the
RewardLoopWorker each Ray reward worker hosts (it builds the reward manager through get_custom_reward_fn and
scores every sample concurrently on its event loop), or, with "ray", through the RewardLoopManager the trainer
builds: a local Ray cluster, the workers as Ray actors, the columns assembled from theirs.

argv[1]: a JSON plan {"model", "data", "samples": [[row, response], ...], "metrics_url" (or null),
"runs": [{"overrides": [...], "ray": bool}, ...], "documented": [...] (optional)}. Prints one JSON line: {"runs":
per run, the scores, the columns verl logs (keyed by the first sample's keys, as RewardLoopManager builds them),
the rm_scores tensor's sum and the Score calls the server counted, or the exception that ended it; "documented":
the reward section of the config the documented command line composes}.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import ray
import torch
import verl.trainer
from hydra import compose, initialize_config_dir
from omegaconf import DictConfig, OmegaConf
from transformers import PreTrainedTokenizerBase
from verl import DataProto
from verl.experimental.reward_loop.reward_loop import RewardLoopManager, RewardLoopWorker
from verl.utils import hf_tokenizer
from verl.utils.dataset.rl_dataset import RLHFDataset, collate_fn

from reward_server.loadtest.scrape import scrape, total


def config(overrides: list[str]) -> DictConfig:
    with initialize_config_dir(config_dir=str(Path(verl.trainer.__file__).parent / "config"), version_base=None):
        return compose("ppo_trainer", overrides=overrides)


def batch(plan: dict[str, Any], tokenizer: PreTrainedTokenizerBase, data_config: DictConfig) -> DataProto:
    dataset = RLHFDataset(plan["data"], tokenizer, data_config)
    rows = [dataset[row] for row, _ in plan["samples"]]
    prompts = [tokenizer.apply_chat_template(row["raw_prompt"], add_generation_prompt=True, tokenize=True,
                                             return_dict=False) for row in rows]
    responses = [[*tokenizer.encode(text), tokenizer.eos_token_id] for _, text in plan["samples"]]
    width_p, width_r = max(map(len, prompts)), max(map(len, responses))
    pad = tokenizer.pad_token_id
    prompt_ids = torch.tensor([[pad] * (width_p - len(p)) + p for p in prompts])
    response_ids = torch.tensor([r + [pad] * (width_r - len(r)) for r in responses])
    mask = torch.tensor([[0] * (width_p - len(p)) + [1] * len(p) + [1] * len(r) + [0] * (width_r - len(r))
                         for p, r in zip(prompts, responses, strict=True)])
    return DataProto.from_single_dict({**collate_fn(rows), "prompts": prompt_ids, "responses": response_ids,
                                       "input_ids": torch.cat([prompt_ids, response_ids], dim=1),
                                       "attention_mask": mask})


def score_calls(url: str | None) -> int:
    return int(total(scrape(url), "reward_requests_total", method="Score")) if url else 0


def through_ray(plan: dict[str, Any], overrides: list[str], data: DataProto) -> dict[str, Any]:
    ray.init(num_cpus=2, include_dashboard=False)   # its workers inherit this process's environment
    try:
        manager = RewardLoopManager(config(overrides))
        before = score_calls(plan["metrics_url"])
        output = manager.compute_rm_score(data)
        keys = output.meta_info["reward_extra_keys"]
        return {"scores": output.batch["rm_scores"].sum(dim=-1).tolist(),
                "columns": {key: output.non_tensor_batch[key].tolist() for key in keys},
                "rm_scores_sum": float(output.batch["rm_scores"].sum()),
                "score_calls": score_calls(plan["metrics_url"]) - before}
    finally:
        ray.shutdown()


async def run(plan: dict[str, Any], overrides: list[str], data: DataProto) -> dict[str, Any]:
    worker = RewardLoopWorker(config(overrides))
    before = score_calls(plan["metrics_url"])
    try:
        outputs = await worker.compute_score_batch(data)
    except Exception as error:   # what verl's trainer would get from the worker
        return {"error": type(error).__name__, "message": str(error)}
    scores = [output["reward_score"] for output in outputs]
    keys = list(outputs[0]["reward_extra_info"])
    return {"scores": scores,
            "columns": {key: [output["reward_extra_info"][key] for output in outputs] for key in keys},
            "rm_scores_sum": float(worker.reward_manager.assemble_rm_scores(data, scores).sum()),
            "score_calls": score_calls(plan["metrics_url"]) - before}


async def main(plan: dict[str, Any]) -> dict[str, Any]:
    runs = []
    if plan["runs"]:
        data = batch(plan, hf_tokenizer(plan["model"]), config(plan["runs"][0]["overrides"]).data)
        runs = [through_ray(plan, r["overrides"], data) if r.get("ray") else await run(plan, r["overrides"], data)
                for r in plan["runs"]]
    documented = plan.get("documented")
    return {"runs": runs,
            "documented": documented and OmegaConf.to_container(config(documented).reward, resolve=True)}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(json.loads(sys.argv[1])))))
