"""Run by tests/integrations/test_openrlhf.py with OpenRLHF's own interpreter: our reward file, loaded and called by
OpenRLHF 0.11's `SingleTurnAgentExecutor` as a rollout worker does with `--reward.remote_url <file>.py`.

The prompt is built by OpenRLHF's dataset code (the .jsonl read as its `blending_datasets` reads one, then
`preprocess_data`, chat template applied) from the rows `python -m integrations.problems --format openrlhf`
writes; the query the reward file gets is the executor's own decoding of prompt + response tokens from a real
(tiny, byte-level) tokenizer. Only the generation is scripted: vLLM needs a GPU, so `generate` answers each
sample's given completion, as vLLM's engine answers the executor.

argv: the reward file, the rows file, then a JSON list of [row index, completion(, max_length: the executor's
budget for prompt + response, 8192 if not given)]; prints one JSON object per sample: the executor's reward,
score and extra_logs, with the shape OpenRLHF builds its reward tensor in.
"""

from __future__ import annotations

import asyncio
import json
import sys
from types import SimpleNamespace

import torch
from datasets import load_dataset
from openrlhf.datasets.prompts_dataset import preprocess_data
from openrlhf.utils.agent import SingleTurnAgentExecutor
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast

EOS = "<|im_end|>"
CHAT_TEMPLATE = ("{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}\n{% endfor %}"
                 "{% if add_generation_prompt %}<|assistant|>\n{% endif %}")


def tiny_tokenizer() -> PreTrainedTokenizerFast:
    """Byte-level BPE with no merges (every text encodes, and decodes back byte for byte) and a chat model's
    end-of-sequence token."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.train_from_iterator([], trainers.BpeTrainer(initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                                          vocab_size=300, show_progress=False))
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, chat_template=CHAT_TEMPLATE, eos_token=EOS)


class ScriptedEngine:
    """`generate` as the executor awaits it from vLLM's engine: prompt token ids in, one finished output out."""

    def __init__(self, tokenizer: PreTrainedTokenizerFast, completion: str) -> None:
        self.tokenizer = tokenizer
        self.completion = completion

    async def generate(self, prompt_token_ids: list[int], sampling_params, multi_modal_data=None) -> SimpleNamespace:
        """Cut at max_tokens ("length"), else finished by the end-of-sequence token, which vLLM's token ids keep and
        its text leaves out."""
        ids = [*self.tokenizer(text=self.completion, add_special_tokens=False)["input_ids"],
               self.tokenizer.eos_token_id]
        cut = ids[:sampling_params.max_tokens]
        return SimpleNamespace(outputs=[SimpleNamespace(
            token_ids=cut, text=self.tokenizer.decode(cut, skip_special_tokens=True),
            finish_reason="length" if cut != ids else "stop", logprobs=None)])


async def main() -> None:
    reward_file, rows_file, samples = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    tokenizer = tiny_tokenizer()
    rows = load_dataset("json", data_files=rows_file)["train"]   # how OpenRLHF's blending_datasets reads a .jsonl
    executor = SingleTurnAgentExecutor([reward_file])   # train_ppo_ray splits --reward.remote_url into this list
    params = SimpleNamespace(max_tokens=None, logprobs=None)

    async def rollout(index: int, completion: str, max_length: int = 8192) -> dict:
        prompt, label = preprocess_data(rows[index], None, "prompt", "label", tokenizer.apply_chat_template)
        output = await executor.execute(prompt, label, params, max_length, tokenizer,
                                        ScriptedEngine(tokenizer, completion))
        reward = output["reward"]
        return {"reward": None if reward is None else torch.tensor([reward]).tolist(),   # as samples_generator does
                "score": None if output["scores"] is None else torch.tensor([output["scores"]]).tolist(),
                "extra_logs": {key: float(value.flatten()[0]) for key, value in output["extra_logs"].items()}}

    print(json.dumps(await asyncio.gather(*(rollout(*sample) for sample in samples))))


if __name__ == "__main__":
    asyncio.run(main())
