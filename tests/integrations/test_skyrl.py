"""The SkyRL env (integrations/skyrl_env.py) inside skyrl-gym 0.4's own venv, against a real reward server:
registered by docs/integrations.md's lines, made through skyrl_gym's registry from rows our converter writes, and
stepped; each step's verdict is a direct Score call's, a failed turn's observation is its feedback, and an infra
verdict or a stopped server ends the episode marked infra in the step's metadata and the env's metrics."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq

from benchmarks import humaneval, problem_jsonl
from integrations import problems as converter
from integrations import skyrl
from integrations.skyrl import ENV_CLASS
from reward_server.client import RewardClient
from reward_server.pb import reward_pb2
from tests.conftest import ROOT
from tests.integrations.framework_venv import run_script
from tests.integrations.problem_rows import HALF, PROBLEMS, RIGHT
from tests.language_table import load_table

SCRIPT = Path(__file__).with_name("skyrl_episodes.py")


def registration() -> str:
    """The lines of docs/integrations.md's SkyRL entry point that register the env: its import and its call."""
    text = (ROOT / "docs" / "integrations.md").read_text(encoding="utf-8")
    entry_point = re.search(r"```python\n(import hydra\n.*?)```", text[text.index("## SkyRL"):], re.DOTALL).group(1)
    lines = entry_point.splitlines()
    return "\n".join([*(line for line in lines if line == "from skyrl_gym.envs import register"),
                      *(line.strip() for line in lines if line.strip().startswith("register("))])


def episodes(tmp_path: Path, address: str, plan: list, max_turns: int = 1) -> list[dict]:
    source = tmp_path / "problems.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in PROBLEMS))
    rows = tmp_path / "skyrl.jsonl"
    converter.main(["--problems", str(source), "--format", "skyrl", "--output", str(rows)])
    done = run_script("skyrl", SCRIPT, registration(), str(rows), address, str(max_turns), json.dumps(plan))
    assert done.returncode == 0, done.stderr[-5000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def direct(address: str, pairs: list[tuple[int, str]]) -> list[reward_pb2.ScoreResult]:
    problems = [problem_jsonl.problem(row, "t", "row") for row in PROBLEMS]
    with RewardClient(address) as client:
        return client.score([problems[i].candidate(f"d{n}", text) for n, (i, text) in enumerate(pairs)])


def test_single_turn_steps_grade_as_score_does_and_infra_is_marked(start_server, tmp_path: Path) -> None:
    server = start_server()
    pairs = [(0, RIGHT), (0, HALF), (0, "no code"), (2, "VERDICT: TRUE"), (2, "VERDICT: FALSE"), (1, RIGHT)]
    got = episodes(tmp_path, server.address, [[i, [text]] for i, text in pairs])
    results = direct(server.address, pairs)
    verdicts = [reward_pb2.Verdict.Name(result.verdict) for result in results]
    assert verdicts == ["PASS", "WRONG_ANSWER", "NO_CODE", "PASS", "WRONG_ANSWER", "INFRA_UNKNOWN_LANGUAGE"]
    for episode, result, verdict, (i, _) in zip(got, results, verdicts, pairs, strict=True):
        infra = verdict.startswith("INFRA_")
        assert episode["type"] == "RewardServerEnv"
        assert episode["prompt"] == problem_jsonl.problem(PROBLEMS[i], "t", "row").chat
        step, = episode["steps"]
        assert step["done"] and step["observations"] == []
        assert step["metadata"] == {"verdict": verdict, "detail": result.detail, "infra": infra}
        assert step["reward"] == (0.0 if infra else result.reward)
        assert episode["metrics"] == {"turns": 1, "infra": float(infra), "passed": float(verdict == "PASS")}


def test_multi_turn_feedback_is_the_next_observation(start_server, tmp_path: Path) -> None:
    server = start_server()
    fixed, failed = episodes(tmp_path, server.address, [[0, [HALF, RIGHT]], [0, [HALF, "no code", RIGHT]]],
                             max_turns=2)
    wrong = direct(server.address, [(0, HALF)])[0]
    first, second = fixed["steps"]
    assert not first["done"] and first["reward"] == 0.0 and first["metadata"]["verdict"] == "WRONG_ANSWER"
    assert first["observations"] == [{"role": "user",
                                      "content": f"Your answer was graded WRONG_ANSWER: {wrong.detail}"}]
    assert second["done"] and second["reward"] == 1.0 and second["metadata"]["verdict"] == "PASS"
    assert fixed["metrics"] == {"turns": 2, "infra": 0.0, "passed": 1.0}
    assert [step["metadata"]["verdict"] for step in failed["steps"]] == ["WRONG_ANSWER", "NO_CODE"]
    assert failed["steps"][-1]["done"] and failed["metrics"] == {"turns": 2, "infra": 0.0, "passed": 0.0}


def test_a_stopped_server_ends_the_episode_marked_infra(start_server, tmp_path: Path) -> None:
    server = start_server()
    server.stop()
    episode, = episodes(tmp_path, server.address, [[0, [RIGHT, RIGHT]]], max_turns=2)
    step, = episode["steps"]
    assert step["done"] and step["reward"] == 0.0
    assert step["metadata"]["infra"] and step["metadata"]["verdict"] == "INFRA_UNAVAILABLE"
    assert episode["metrics"]["infra"] == 1.0


def test_the_env_class_the_rows_name_is_the_one_the_docs_register() -> None:
    assert f'id="{ENV_CLASS}"' in registration()


def test_the_documented_conversion_writes_rows_whose_ground_truth_is_the_problem(tmp_path: Path) -> None:
    text = (ROOT / "docs" / "integrations.md").read_text(encoding="utf-8")
    command = re.search(r"```\n(python -m integrations\.problems [^\n]*--format skyrl[^\n]*)\n```", text).group(1)
    subprocess.run([sys.executable, *shlex.split(command)[1:]], cwd=tmp_path, check=True, capture_output=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})
    rows = pq.read_table(next(tmp_path.glob("*.parquet"))).to_pylist()
    expected = humaneval.problems(load_table())
    assert {row["env_class"] for row in rows} == {ENV_CLASS}
    assert [skyrl.problem_of(row) for row in rows] == expected
