"""The OpenRLHF 0.11 reward file (integrations/openrlhf.py) inside OpenRLHF's own venv, against a real reward
server: loaded and called by OpenRLHF's `SingleTurnAgentExecutor` from rows our converter writes, its rewards
equal direct Score calls', and an infra verdict or a stopped server scores 0 with extra_logs["infra"]."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import problem_jsonl
from integrations import problems as converter
from reward_server.client import SERVER_ENV, RewardClient
from reward_server.pb import reward_pb2
from tests.conftest import ROOT
from tests.integrations.framework_venv import run_script

SCRIPT = Path(__file__).with_name("openrlhf_rollout.py")
REWARD_FILE = ROOT / "integrations" / "openrlhf.py"
ADD = {"id": "add", "language": "python", "prompt": "Read two integers, print their sum.",
       "io_tests": [{"stdin": "2 3\n", "expected_stdout": "5\n"}, {"stdin": "10 -4\n", "expected_stdout": "6\n"}],
       "extraction": "last_block"}
PROBLEMS = [problem_jsonl.problem(row, "t", "row") for row in (
    ADD, {**ADD, "id": "add-klingon", "language": "klingon"},
    {"id": "comm", "prompt": "Does x * y = y * x imply x = x?", "expected": True},
    {"id": "inc", "language": "python", "prompt": "def inc(x):\n", "tests": "assert inc(1) == 2\n",
     "stop_tokens": ["\ndef"]})]
RIGHT = "Read both, add.\n```python\na, b = map(int, input().split())\nprint(a + b)\n```"


def rollouts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, address: str, samples: list[tuple]) -> list[dict]:
    rows = tmp_path / "rows.jsonl"
    converter.write(PROBLEMS, rows, "openrlhf")
    monkeypatch.setenv(SERVER_ENV, address)   # the reward file's address in OpenRLHF's workers
    done = run_script("openrlhf", SCRIPT, str(REWARD_FILE), str(rows), json.dumps(samples))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_openrlhfs_executor_scores_as_score_does(start_server, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    server = start_server()
    samples = [(0, RIGHT), (0, "```python\nprint(5)\n```"), (0, "no code"), (2, "VERDICT: TRUE"),
               (2, "VERDICT: FALSE"), (3, "    return x + 1\n"), (3, "    return x\n"), (1, RIGHT)]
    # and a prompt OpenRLHF cuts from the left to fit 16 tokens: the query no longer starts with it
    *got, cut = rollouts(tmp_path, monkeypatch, server.address, [*samples, (0, RIGHT, 16)])
    with RewardClient(server.address) as client:
        direct = client.score([PROBLEMS[index].candidate(f"d{i}", completion)
                               for i, (index, completion) in enumerate(samples)])
    verdicts = [reward_pb2.Verdict.Name(result.verdict) for result in direct]
    assert verdicts == ["PASS", "WRONG_ANSWER", "NO_CODE", "PASS", "WRONG_ANSWER", "PASS", "RUNTIME_ERROR",
                        "INFRA_UNKNOWN_LANGUAGE"]
    for sample, result, verdict in zip(got, direct, verdicts, strict=True):
        infra = verdict.startswith("INFRA_")
        reward = 0.0 if infra else result.reward
        # the shape OpenRLHF's samples_generator gives its reward and score tensors: one value per sample
        assert (sample["reward"], sample["score"]) == ([reward], [reward]), verdict
        assert sample["extra_logs"] == {"infra": float(infra)}, verdict
    assert cut == {"reward": [0.0], "score": [0.0], "extra_logs": {"infra": 1.0}}


def test_a_stopped_server_scores_zero_marked_infra(start_server, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    server = start_server()
    server.stop()
    (sample,) = rollouts(tmp_path, monkeypatch, server.address, [(0, RIGHT)])
    assert sample == {"reward": [0.0], "score": [0.0], "extra_logs": {"infra": 1.0}}
