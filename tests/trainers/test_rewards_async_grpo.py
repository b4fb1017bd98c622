"""Our rewards in TRL's `AsyncGRPOTrainer` path: its rollout worker pickles the reward functions into a
spawned child process (refusing any that cannot be pickled), and the child calls them, sync and async,
against a real reward server."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

import datasets
import pytest
from accelerate import PartialState
from transformers import AutoTokenizer, PreTrainedTokenizerBase
from trl.chat_template_utils import qwen2_5_chat_template
from trl.experimental.async_grpo import async_rollout_worker
from trl.experimental.async_grpo.async_rollout_worker import AsyncRolloutWorker

from benchmarks.equational import EquationalProblem
from tests.trainers.test_rewards import ADD_TESTS, SUM_PROGRAM, WRONG_PROGRAM
from tests.trainers.tiny_model import tiny_model
from tests.trainers.trl_rollout import FixedCompletionsLoop
from trainers import benchmarks
from trainers.rewards import async_equation_reward, code_reward

CHILD_TIMEOUT_S = 300


class FixedCompletionsWorker(AsyncRolloutWorker):
    _loop_cls = FixedCompletionsLoop


def rows() -> datasets.Dataset:
    lcb = [{"question_id": "add", "question_content": "Print a+b.", "private_test_cases": ADD_TESTS}]
    return datasets.concatenate_datasets([
        benchmarks.livecodebench(lcb, languages=["python"]),
        benchmarks.livecodebench(lcb, languages=["klingon"]),
        benchmarks.equational([EquationalProblem(5, 625, "x = y * x", "x = x * (x * ((y * z) * x))", True)],
                              "Does {{ equation1 }} imply {{ equation2 }}?")])


def qwen_tokenizer(tmp_path: Path) -> PreTrainedTokenizerBase:
    """The tiny model's tokenizer with Qwen2.5's chat template, one the rollout loop knows how to parse."""
    tiny_model(tmp_path / "tiny", ["Print a+b."])
    tokenizer = AutoTokenizer.from_pretrained(tmp_path / "tiny")
    tokenizer.chat_template = qwen2_5_chat_template
    return tokenizer


@pytest.fixture
def vllm_not_needed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker refuses to start without vLLM and aiohttp; the loop above generates without them. Like the
    trainer that owns it, the worker needs accelerate's process state (for its logging)."""
    monkeypatch.setattr(async_rollout_worker, "is_vllm_available", lambda: True)
    monkeypatch.setattr(async_rollout_worker, "is_aiohttp_available", lambda: True)
    PartialState()


def test_trl_rollout_worker_pickles_our_rewards_and_its_child_scores_with_them(
        server_address: str, tmp_path: Path, vllm_not_needed: None) -> None:
    dataset = rows()
    completions = [[SUM_PROGRAM, WRONG_PROGRAM], [SUM_PROGRAM, SUM_PROGRAM], ["VERDICT: TRUE", "VERDICT: FALSE"]]
    code, equation = code_reward(server_address), async_equation_reward(server_address)
    # used in this process first: a reward that has connected still pickles
    columns = {name: dataset[name] for name in dataset.column_names if name != "prompt"}
    answers = [[{"role": "assistant", "content": "VERDICT: TRUE"}]] * len(dataset)
    assert code(prompts=dataset["prompt"], completions=answers, **columns) == [0.0, None, None]
    assert asyncio.run(equation(prompts=dataset["prompt"], completions=answers, **columns)) == [None, None, 1.0]
    tokenizer = qwen_tokenizer(tmp_path)

    worker = FixedCompletionsWorker(model_name="tiny", dataset=dataset, reward_funcs=[code, equation],
                                    processing_class=tokenizer, eos_token_ids=[tokenizer.eos_token_id],
                                    num_generations=2, completions=completions, child_ready_timeout=CHILD_TIMEOUT_S)
    worker.start()   # TRL's picklability check, then the spawned child
    try:
        groups = [worker.rollout_buffer.get(timeout=CHILD_TIMEOUT_S) for _ in range(len(dataset))]
    finally:
        worker.stop()
        code.close()

    rewards = {samples[0].group_id: [(s.metrics["rewards/code_reward"], s.metrics["rewards/equation_reward"],
                                      s.advantage) for s in samples] for samples in groups}
    (code_pass, no_eq, up), (code_fail, _, down) = rewards[0]
    assert (code_pass, code_fail) == (1.0, 0.0) and math.isnan(no_eq) and up > 0 > down
    # the unknown language is an infra verdict: no reward from either function, so no advantage
    assert all(math.isnan(c) and math.isnan(e) and a == 0.0 for c, e, a in rewards[1])
    (no_code, eq_pass, _), (_, eq_fail, _) = rewards[2]
    assert math.isnan(no_code) and (eq_pass, eq_fail) == (1.0, 0.0)


def test_trl_rollout_worker_refuses_what_cannot_be_pickled(tmp_path: Path, vllm_not_needed: None) -> None:
    """The check above is TRL's own: a closure is refused before any process is spawned."""
    tokenizer = qwen_tokenizer(tmp_path)
    worker = FixedCompletionsWorker(model_name="tiny", dataset=rows(), reward_funcs=[lambda **_: [0.0]],
                                    processing_class=tokenizer, eos_token_ids=[tokenizer.eos_token_id],
                                    num_generations=2, completions=[])
    with pytest.raises(TypeError, match="must be picklable"):
        worker.start()
