"""GRPO end to end on CPU: a tiny random Qwen2 built offline, a real reward server, code + equation data.

The policy is random, so the test checks the plumbing, not learning: every completion was scored by the
server, an infra verdict reached TRL as a masked reward (NaN, advantage 0), and the held-out callback logged
its metrics.
"""

from __future__ import annotations

import json
import logging
import math
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from benchmarks.data_dir import DEFAULT as DATA_DIR
from tests.trainers.tiny_model import tiny_model
from trainers import grpo
from trainers.splits import HELDOUT, split_of

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[2]
SAIR_JSONL = DATA_DIR / "sair-stage1" / "problems_hard3_20.jsonl"
KLINGON = "HumanEval_53_add_klingon"
MULTIPL_E_ROWS = [
    {"name": "HumanEval_53_add", "language": "py", "prompt": "def add(x: int, y: int) -> int:\n",
     "tests": "\ndef check(candidate):\n    assert candidate(2, 3) == 5\n\ncheck(add)\n",
     "stop_tokens": ["\ndef", "\n#", "\nif", "\nclass"]},
    {"name": "HumanEval_2_truncate", "language": "py", "prompt": "def truncate(x: float) -> float:\n",
     "tests": "\ndef check(candidate):\n    assert candidate(3.5) == 0.5\n\ncheck(truncate)\n",
     "stop_tokens": ["\ndef", "\n#", "\nif", "\nclass"]},
    # a language the server does not know: its reward must be withheld (INFRA_UNKNOWN_LANGUAGE -> None)
    {"name": KLINGON, "language": "klingon", "prompt": "qaStaHvIS add(x, y)\n",
     "tests": "check add\n", "stop_tokens": ["\n\n"]},
]
NUM_GENERATIONS = 2
STEPS = 2


def choose_split_seed(problem_ids: dict[str, str], fraction: float) -> int:
    """A split seed (the split is a pure function of id and seed) that trains on the klingon problem, a Python
    one and an equation, and holds out a Python problem and an equation."""
    for seed in range(1000):
        held = {pid for pid in problem_ids if split_of(pid, seed=seed, heldout_fraction=fraction) == HELDOUT}
        trained = set(problem_ids) - held
        if (KLINGON in trained and {problem_ids[pid] for pid in held} == {"py", "equation"}
                and {problem_ids[pid] for pid in trained} == {"py", "klingon", "equation"}):
            return seed
    raise AssertionError("no split seed fits")


@pytest.fixture
def sair_file(tmp_path: Path) -> Path:
    rows = SAIR_JSONL.read_text(encoding="utf-8").splitlines()[:3]
    path = tmp_path / "sair.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def verdicts_given(metrics_url: str) -> float:
    """The server's own count of results (its Prometheus `reward_verdicts` counter, every label)."""
    with urllib.request.urlopen(metrics_url, timeout=10) as reply:
        text = reply.read().decode()
    return sum(sample.value for family in text_string_to_metric_families(text) if family.name == "reward_verdicts"
               for sample in family.samples if sample.name == "reward_verdicts_total")


def test_grpo_steps_on_cpu_with_a_real_server(start_server, tmp_path, sair_file):
    server = start_server("--metrics-port", "0")
    metrics_url = server.metrics_url
    server_address = server.address
    assert verdicts_given(metrics_url) == 0
    multipl_e = tmp_path / "multipl_e.jsonl"
    multipl_e.write_text("".join(json.dumps(row) + "\n" for row in MULTIPL_E_ROWS), encoding="utf-8")
    sair_rows = [json.loads(line) for line in sair_file.read_text(encoding="utf-8").splitlines()]
    ids = {row["name"]: row["language"] for row in MULTIPL_E_ROWS}
    ids.update({f"eq{row['eq1_id']}->eq{row['eq2_id']}": "equation" for row in sair_rows})
    fraction = 0.4
    seed = choose_split_seed(ids, fraction)
    train_rows = sum(split_of(pid, seed=seed, heldout_fraction=fraction) != HELDOUT for pid in ids)
    heldout_rows = len(ids) - train_rows

    model_dir = tmp_path / "tiny"
    corpus = [row["prompt"] + row["tests"] for row in MULTIPL_E_ROWS] + [
        f"VERDICT: TRUE {row['equation1']} {row['equation2']}" for row in sair_rows]
    tiny_model(model_dir, corpus)

    script_args, training_args = grpo.parse([
        "--model_name_or_path", str(model_dir), "--dtype", "float32", "--server", server_address,
        "--multipl_e", str(multipl_e), "--sair", str(sair_file),
        "--split_seed", str(seed), "--heldout_fraction", str(fraction), "--heldout_every_steps", "1",
        "--output_dir", str(tmp_path / "out"), "--use_cpu", "--bf16", "false", "--report_to", "none",
        "--max_steps", str(STEPS), "--logging_steps", "1", "--save_strategy", "no",
        "--num_generations", str(NUM_GENERATIONS), "--max_completion_length", "12",
        # every training prompt in every step, so each step scores the klingon one too
        "--per_device_train_batch_size", str(NUM_GENERATIONS * train_rows),
        "--learning_rate", "1e-3", "--seed", "0",
    ])
    assert script_args.heldout_every_steps == 1 and not training_args.use_vllm
    trainer = grpo.run(script_args, training_args)
    history = trainer.state.log_history
    train_logs = [entry for entry in history if "code/verdicts/PASS" in entry]
    heldout_logs = [entry for entry in history if any(key.startswith("heldout/") for key in entry)]
    for entry in train_logs + heldout_logs:
        log.info("log line: %s", {k: v for k, v in entry.items() if v or "/verdicts/" not in k})
    assert trainer.state.global_step == STEPS

    # every completion of every step reached the server and came back with a verdict; the server counted
    # each training completion and each held-out sample (one per held-out problem, after every step)
    assert verdicts_given(metrics_url) == STEPS * (NUM_GENERATIONS * train_rows + heldout_rows)
    assert len(train_logs) == STEPS
    code_rows = sum(kind != "equation" and split_of(pid, seed=seed, heldout_fraction=fraction) != HELDOUT
                    for pid, kind in ids.items())
    for entry in train_logs:
        code_scored = sum(v for k, v in entry.items() if k.startswith("code/verdicts/"))
        equation_scored = sum(v for k, v in entry.items() if k.startswith("equation/verdicts/"))
        assert code_scored == NUM_GENERATIONS * code_rows
        assert equation_scored == NUM_GENERATIONS * (train_rows - code_rows)
        assert entry["code/verdicts/INFRA_UNKNOWN_LANGUAGE"] == NUM_GENERATIONS
        assert entry["code/infra_rate"] == pytest.approx(1 / code_rows)
        assert math.isfinite(entry["reward"])

    # the infra verdict became None in TRL: NaN for every reward function, no advantage, out of the mean
    last = trainer._logs
    verdicts = list(last["extra"]["code_verdict"])
    code_rewards = list(last["rewards"]["code_reward"])
    equation_rewards = list(last["rewards"]["equation_reward"])
    advantages = list(last["advantages"])
    infra = [i for i, verdict in enumerate(verdicts) if verdict == "INFRA_UNKNOWN_LANGUAGE"]
    assert len(infra) == NUM_GENERATIONS
    for i in infra:
        assert math.isnan(code_rewards[i]) and math.isnan(equation_rewards[i]) and advantages[i] == 0.0
    scored = [i for i, verdict in enumerate(verdicts) if verdict and i not in infra]
    assert scored and all(code_rewards[i] in (0.0, 1.0) for i in scored)

    # the held-out callback logged pass@1 per set and per language, and the infra rate, after each step
    assert len(heldout_logs) == STEPS
    for entry in heldout_logs:
        assert entry["heldout/multipl-e/infra_rate"] == 0.0
        assert 0.0 <= entry["heldout/multipl-e/pass@1"] <= 1.0
        assert 0.0 <= entry["heldout/multipl-e/py/pass@1"] <= 1.0
        assert 0.0 <= entry["heldout/sair/pass@1"] <= 1.0
        assert entry["heldout/sair/problems"] >= 1
        assert not any(k.startswith("heldout/sair/") and k.count("/") == 3 for k in entry)  # no language
