"""integrations/verl.py inside verl 0.9.1's own venv, against a real reward server: verl's config, dataset loader
and reward loop (naive, dapo, rate_limited) score a batch of 64 decoded responses through compute_score; the
server sees a few Score calls, not 64; every verdict is a direct Score call's; infra scores 0 or raises."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from benchmarks import problem_jsonl
from integrations import problems as problems_cli
from integrations.verl import ON_INFRA
from reward_server.client import RewardClient
from reward_server.pb import reward_pb2
from tests.conftest import ROOT
from tests.integrations.framework_venv import run_script
from tests.integrations.problem_rows import HALF, PROBLEMS, RIGHT
from tests.trainers.tiny_model import tiny_model

SCRIPT = Path(__file__).with_name("verl_rewards.py")
RESPONSES = {"add": [RIGHT, HALF, "I would add them.", RIGHT.replace("a + b", "a - b")],
             "add-klingon": [RIGHT], "comm": ["VERDICT: TRUE", "VERDICT: FALSE", "no idea"]}
SAMPLES = 64


def documented_command() -> list[str]:
    """The overrides of docs/integrations.md's verl command line."""
    text = (ROOT / "docs" / "integrations.md").read_text(encoding="utf-8")
    command = re.search(r"```\n(python -m verl\.trainer\.main_ppo .*?)```", text, re.DOTALL).group(1)
    return shlex.split(command.replace("\\\n", " "))[3:]


def overrides(data: dict, address: str, manager: str = "naive", **reward_kwargs: object) -> list[str]:
    """The config docs/integrations.md gives, for one reward manager."""
    given = [f"+reward.custom_reward_function.reward_kwargs.{key}={value}" for key, value in
             {"server": address, **reward_kwargs}.items()]
    return [f"actor_rollout_ref.model.path={data['model']}", f"data.train_files={data['data']}",
            "reward.custom_reward_function.path=pkg://integrations.verl",
            "reward.custom_reward_function.name=compute_score", f"reward.reward_manager.name={manager}", *given,
            *(["+reward.max_concurrent=256"] if manager == "rate_limited" else [])]


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The tiny model (its tokenizer), the problems as verl's parquet (written by the converter's CLI), and 64
    samples: each (row, response) pair in turn."""
    where = tmp_path_factory.mktemp("verl")
    tiny_model(where / "tiny", [json.dumps(PROBLEMS), *(t for ts in RESPONSES.values() for t in ts)])
    source = where / "problems.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in PROBLEMS))
    problems_cli.main(["--problems", str(source), "--format", "verl", "--output", str(where / "train.parquet")])
    pairs = [(row, text) for row, problem in enumerate(PROBLEMS) for text in RESPONSES[problem["id"]]]
    return {"model": str(where / "tiny"), "data": str(where / "train.parquet"),
            "samples": [pairs[i % len(pairs)] for i in range(SAMPLES)]}


def score_in_verl(data: dict[str, object], metrics_url: str | None, runs: list[list[str]], *,
                  ray: bool = False) -> list[dict]:
    return in_verl(data, metrics_url, runs, ray=ray)["runs"]


def in_verl(data: dict[str, object], metrics_url: str | None, runs: list[list[str]], *, ray: bool = False,
            documented: list[str] | None = None) -> dict:
    plan = {**data, "metrics_url": metrics_url, "runs": [{"overrides": r, "ray": ray} for r in runs],
            "documented": documented}
    done = run_script("verl", SCRIPT, json.dumps(plan), timeout_s=600)
    assert done.returncode == 0, done.stderr[-5000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def direct_verdicts(address: str, samples: list, *, run_all_tests: bool = False) -> list[str]:
    problems = [problem_jsonl.problem(row, "problems", "row") for row in PROBLEMS]
    with RewardClient(address) as client:
        results = client.score([problems[row].candidate(f"d{i}", text, run_all_tests=run_all_tests)
                                for i, (row, text) in enumerate(samples)])
    return [reward_pb2.Verdict.Name(result.verdict) for result in results]


def test_verls_reward_loop_scores_a_batch_in_few_score_calls_as_score_does(start_server, data) -> None:
    server = start_server("--metrics-port", "0")
    runs = score_in_verl(data, server.metrics_url, [
        overrides(data, server.address, "naive"), overrides(data, server.address, "dapo"),
        overrides(data, server.address, "rate_limited"), overrides(data, server.address, "naive", partial_credit=True)])
    verdicts = direct_verdicts(server.address, data["samples"])
    infra = [v.startswith("INFRA_") for v in verdicts]
    assert set(verdicts) == {"PASS", "WRONG_ANSWER", "NO_CODE", "INFRA_UNKNOWN_LANGUAGE", "NO_VERDICT"}
    for got in runs:
        assert set(got["columns"]) == {"score", "verdict", "infra", "pass_fraction"}, got
        assert got["columns"]["verdict"] == verdicts
        assert got["columns"]["infra"] == infra
        assert 1 <= got["score_calls"] <= SAMPLES // 8, [r["score_calls"] for r in runs]
        assert got["rm_scores_sum"] == pytest.approx(sum(got["scores"]))
    for got in runs[:3]:
        assert got["scores"] == [1.0 if v == "PASS" else 0.0 for v in verdicts]
    partial = runs[3]
    assert partial["columns"]["verdict"] == direct_verdicts(server.address, data["samples"], run_all_tests=True)
    halves = [i for i, (_, text) in enumerate(data["samples"]) if text == HALF]
    assert halves and all(partial["scores"][i] == partial["columns"]["pass_fraction"][i] == 0.5 for i in halves)


def test_through_rays_reward_loop_manager_each_worker_makes_one_score_call(start_server, data) -> None:
    """The trainer's own path: RewardLoopManager splits the batch over its Ray reward workers (actors, each
    scoring on its own event loop) and builds the columns from theirs."""
    server = start_server("--metrics-port", "0")
    workers = 2
    config = [*overrides(data, server.address), f"reward.num_workers={workers}"]
    got, = score_in_verl(data, server.metrics_url, [config], ray=True)
    verdicts = direct_verdicts(server.address, data["samples"])
    assert got["columns"]["verdict"] == verdicts
    assert got["columns"]["infra"] == [v.startswith("INFRA_") for v in verdicts]
    assert got["scores"] == [1.0 if v == "PASS" else 0.0 for v in verdicts] == got["columns"]["score"]
    assert 1 <= got["score_calls"] <= workers, got["score_calls"]


def test_infra_scores_zero_or_raises_whether_a_verdict_or_a_stopped_server(start_server, data) -> None:
    """An infra verdict (a language the server lacks) in its samples, a stopped server in all 64."""
    live, stopped = start_server(), start_server()
    stopped.stop()
    zero, raised, zero_stopped, raised_stopped = score_in_verl(data, None, [
        overrides(data, server.address, on_infra=on_infra) for server in (live, stopped) for on_infra in ON_INFRA])
    klingon = [i for i, (row, _) in enumerate(data["samples"]) if PROBLEMS[row]["id"] == "add-klingon"]
    assert klingon and all(zero["columns"]["verdict"][i] == "INFRA_UNKNOWN_LANGUAGE" and zero["scores"][i] == 0.0
                           and zero["columns"]["infra"][i] for i in klingon)
    assert raised["error"] == "InfraFailure" and "INFRA_UNKNOWN_LANGUAGE" in raised["message"]
    assert zero_stopped["scores"] == [0.0] * SAMPLES and zero_stopped["columns"]["infra"] == [True] * SAMPLES
    assert set(zero_stopped["columns"]["verdict"]) == {"INFRA_UNAVAILABLE"}
    assert raised_stopped["error"] == "InfraFailure" and "UNAVAILABLE" in raised_stopped["message"]


def test_the_documented_command_line_composes_with_the_reward_the_tests_use(data) -> None:
    """docs/integrations.md's verl command is a valid verl config, and its reward lines are the tests' own."""
    documented = documented_command()
    ours = [o for o in overrides(data, "reward.ns.svc:50051", on_infra="zero") if "reward" in o]
    assert set(ours) <= set(documented), set(ours) - set(documented)
    reward = in_verl(data, None, [], documented=documented)["documented"]
    assert reward["custom_reward_function"] == {"path": "pkg://integrations.verl", "name": "compute_score",
                                                "reward_kwargs": {"server": "reward.ns.svc:50051",
                                                                  "on_infra": "zero"}}
    assert reward["reward_manager"]["name"] == "naive"
