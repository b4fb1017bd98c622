"""OpenRLHF 0.11: the reward file for `--reward.remote_url /path/to/integrations/openrlhf.py`.

OpenRLHF's `SingleTurnAgentExecutor` loads this file on its own (`spec_from_file_location`, no package), takes
`reward_func` from it, and after each generation calls it from a worker thread with one-item lists: `queries`
(the decoded prompt + response), `prompts` (the prompt as the model saw it, chat template applied) and `labels`
(the dataset's `--data.label_key` column: here a problem as the JSON of `benchmarks.problem_jsonl.row`). It
reads "rewards" (advantages), "scores" (dynamic filtering) and "extra_logs" (logged per sample) from the dict
returned. A call that raises leaves the sample without a reward, which OpenRLHF does not survive; so an
infra verdict, or no server at all, scores 0 with `extra_logs["infra"]` set, and the run logs its infra rate.

The server is $REWARD_SERVER (OpenRLHF passes no options); one blocking client per process, one Score call per
invocation. `dataset_row` is the data side: the rows `--data.input_key prompt --data.label_key label` read.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from typing import Any

from benchmarks import problem_jsonl
from benchmarks.problem import Problem
from reward_server.client import RewardClient, RewardServerError, server_address
from reward_server.pb import reward_pb2
from reward_server.verdicts import Verdict

log = logging.getLogger(__name__)

CALLER = "openrlhf"
# The end-of-sequence tokens of the usual chat models, as text: `<|im_end|>`, `<|eot_id|>`, `<|endoftext|>`...,
# DeepSeek's between full-width bars (U+FF5C), `</s>`, Gemma's `<end_of_turn>` and `<eos>`.
END_OF_SEQUENCE = re.compile(r"(?:<\|[^|<>\s]+\|>|<\uff5c[^\uff5c<>\s]+\uff5c>|</s>|<end_of_turn>|<eos>)+\s*\Z")

_client: RewardClient | None = None
_client_lock = threading.Lock()   # OpenRLHF calls reward_func from many threads at once


def dataset_row(problem: Problem) -> dict[str, Any]:
    """One OpenRLHF prompt row: the chat (`--data.apply_chat_template` renders it) and the problem as a label."""
    return {"prompt": problem.chat, "label": json.dumps(problem_jsonl.row(problem))}


def completion(query: str, prompt: str) -> str | None:
    """The response: the query less the prompt and less the end-of-sequence token that ends a finished one (the
    executor decodes with special tokens, and vLLM's output keeps the token); None when the query does not start
    with the prompt (OpenRLHF cut a prompt too long for its budget from the left): where the response starts is
    then unknown."""
    return END_OF_SEQUENCE.sub("", query[len(prompt):]) if query.startswith(prompt) else None


def _connected() -> RewardClient:
    global _client
    with _client_lock:
        if _client is None:
            _client = RewardClient(server_address(None))
        return _client


def rewards(queries: list[str], prompts: list[str], labels: list[str]) -> tuple[list[float], list[bool]]:
    """(reward, infra) per sample: the server's reward, or 0 where the verdict was not the model's doing."""
    infra = [False] * len(queries)
    batch, positions = [], []
    for i, (query, prompt, label) in enumerate(zip(queries, prompts, labels, strict=True)):
        problem = problem_jsonl.problem(json.loads(label), "openrlhf", f"label {i}")
        response = completion(query, prompt)
        if response is None:
            log.error("%s: the query does not start with its prompt (truncated?); scored as infra", problem.id)
            infra[i] = True
            continue
        batch.append(problem.candidate(f"{problem.id}#{i}", response))
        positions.append(i)
    scores = [0.0] * len(queries)
    try:
        results = _connected().score(batch, priority=reward_pb2.TRAINING, caller=CALLER) if batch else []
    except RewardServerError as error:
        log.error("reward server failed, %d samples scored as infra: %s", len(batch), error)
        return scores, [True] * len(queries)
    for i, result in zip(positions, results, strict=True):
        if Verdict[reward_pb2.Verdict.Name(result.verdict)].is_infra:
            infra[i] = True
        else:
            scores[i] = result.reward
    return scores, infra


def reward_func(queries: list[str], prompts: list[str], labels: list[str]) -> dict[str, Any]:
    """OpenRLHF's entry point: tensors with one value per query, as its own reward files return."""
    import torch  # OpenRLHF's environment has it; the converter above does not need it

    scores, infra = rewards(queries, prompts, labels)
    reward = torch.tensor(scores, dtype=torch.float32)
    return {"rewards": reward, "scores": reward, "extra_logs": {"infra": torch.tensor(infra, dtype=torch.float32)}}
