"""The NeMo Gym resources server (integrations/nemo_gym_servers/.../reward_server) inside nemo-gym 0.4's own venv,
against a real reward server: started by docs/integrations.md's `ng_run` command (Ray, NeMo Gym's head server, our
resources server, its simple agent and its `openai_model` server in front of a scripted model), `/verify` over
HTTP with rollouts in NeMo Gym's response format (right and wrong stdin programs in Python and C++, a
function-style one, equations; infra; a stopped server) grades as direct Score calls do and gathers concurrent
calls into few Score calls, and the docs' `ng_collect_rollouts` writes the model's rollouts and sends the infra
ones to its failures file (and, resumed, retries only those)."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from benchmarks import humaneval, problem_jsonl
from integrations import nemo_gym
from integrations import problems as converter
from reward_server.client import RewardClient
from reward_server.loadtest.scrape import scrape, total
from reward_server.pb import reward_pb2
from tests.conftest import ROOT, ServerHandle
from tests.integrations.framework_venv import framework_python
from tests.integrations.nemo_gym_model import response
from tests.integrations.problem_rows import ADD, HALF, RIGHT
from tests.language_table import load_table

SERVERS = ROOT / "integrations" / "nemo_gym_servers"
MODEL = Path(__file__).with_name("nemo_gym_model.py")
# the servers ng_run starts, each of which sources the venv it finds under uv_venv_dir (skip_venv_if_present)
SERVER_DIRS = ("resources_servers/reward_server", "responses_api_agents/simple_agent",
               "responses_api_models/openai_model")
START_TIMEOUT_S = 240
PROBLEMS = [problem_jsonl.problem(row, "t", "row") for row in (
    ADD, {**ADD, "id": "add-klingon", "language": "klingon", "prompt": "Read two integers, print their sum (klingon)."},
    {"id": "comm", "prompt": "Does x * y = y * x imply x = x?", "expected": True},
    {**ADD, "id": "add-cpp", "language": "cpp", "prompt": "Read two integers, print their sum (C++)."},
    {"id": "inc", "language": "python", "prompt": "def inc(x):\n", "tests": "assert inc(1) == 2\n",
     "stop_tokens": ["\ndef"]})]
RIGHT_CPP = ("```cpp\n#include <iostream>\n"
             "int main() { long a, b; std::cin >> a >> b; std::cout << a + b << std::endl; }\n```")
# what the scripted model answers each problem in rollout collection
COMPLETIONS = {"add": RIGHT, "add-klingon": RIGHT, "comm": "VERDICT: FALSE", "add-cpp": RIGHT_CPP,
               "inc": "    return x\n"}


def documented(program: str) -> list[str]:
    """docs/integrations.md's NeMo Gym command line that starts with `program`, as argv."""
    text = (ROOT / "docs" / "integrations.md").read_text(encoding="utf-8")
    section = text[text.index("## NeMo Gym"):text.index("## SkyRL")]
    command = re.search(rf"```\n({re.escape(program)} .*?)```", section, re.DOTALL).group(1)
    return shlex.split(command.replace("\\\n", " "))


def with_values(argv: list[str], values: dict[str, str]) -> list[str]:
    """argv with the documented value of each `+key=value` in `values` replaced (every one must be there)."""
    replaced, out = set(), []
    for arg in argv:
        flag, _, _ = arg.partition("=")
        key = flag.lstrip("+")
        out.append(f"{flag}={values[key]}" if key in values else arg)
        replaced |= {key} & set(values)
    assert replaced == set(values), f"docs/integrations.md's command lacks {set(values) - replaced}"
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Gym:
    reward: ServerHandle
    verify_url: str
    head: list[str]        # the overrides that point a NeMo Gym command at this run's head server (and logs)
    environ: dict[str, str]
    rows: Path


def _stop(process: subprocess.Popen) -> None:
    """As Ctrl-C stops ng_run (it stops its servers and its Ray cluster), then whatever is left of its group."""
    for sig, wait_s in ((signal.SIGINT, 60), (signal.SIGKILL, 10)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(wait_s)
        except subprocess.TimeoutExpired:
            continue


@pytest.fixture(scope="module")
def gym(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gym]:
    where = tmp_path_factory.mktemp("nemo-gym")
    python = framework_python("nemo-gym")
    venvs = where / "venvs"
    for server in SERVER_DIRS:
        (venvs / server).mkdir(parents=True)
        (venvs / server / ".venv").symlink_to(python.parent.parent)
    source = where / "problems.jsonl"
    source.write_text("".join(json.dumps(problem_jsonl.row(p)) + "\n" for p in PROBLEMS))
    rows = where / "rows.jsonl"
    converter.main(["--problems", str(source), "--format", "nemo-gym", "--output", str(rows)])
    reward = ServerHandle("--metrics-port", "0")
    model = subprocess.Popen([sys.executable, str(MODEL), json.dumps(
        {p.chat[-1]["content"]: COMPLETIONS[p.id] for p in PROBLEMS})], stdout=subprocess.PIPE, text=True)
    model_url = model.stdout.readline().rsplit(" ", 1)[-1].strip()
    head_port, verify_port = free_port(), free_port()
    # the head server of this run, and hydra's run logs out of the checkout
    head = ["+head_server.host=127.0.0.1", f"+head_server.port={head_port}", f"hydra.run.dir={where / 'hydra'}"]
    environ = {**os.environ, "PATH": f"{python.parent}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(ROOT)}
    run = with_values(documented("ng_run"), {
        "policy_base_url": model_url, "policy_model_name": "scripted",
        "reward_server.resources_servers.reward_server.reward_server": reward.address})
    log = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 (lives as long as ng_run)
    ng_run = subprocess.Popen([*run, *head, "+skip_venv_if_present=true", f"+uv_venv_dir={venvs}",
                               f"++reward_server.resources_servers.reward_server.port={verify_port}"],
                              cwd=SERVERS, env=environ, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        give_up = time.monotonic() + START_TIMEOUT_S
        while True:
            log.seek(0)
            text = log.read()
            if re.search(r"All \d+ / \d+ servers ready", text):
                break
            assert ng_run.poll() is None and time.monotonic() < give_up, f"ng_run did not start:\n{text[-5000:]}"
            time.sleep(1)
        yield Gym(reward, f"http://127.0.0.1:{verify_port}/verify", head, environ, rows)
    finally:
        _stop(ng_run)
        model.kill()
        model.wait()
        reward.stop()


def verify(gym: Gym, problem_index: int, text: str) -> dict:
    """POST /verify as NeMo Gym's simple agent does: the task row and the model's response."""
    row = nemo_gym.dataset_row(PROBLEMS[problem_index])
    body = json.dumps({**row, "response": response("scripted", text)}).encode()
    request = urllib.request.Request(gym.verify_url, body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as answer:
        return json.loads(answer.read())


def score_calls(gym: Gym) -> int:
    return int(total(scrape(gym.reward.metrics_url), "reward_requests_total", method="Score"))


def direct(gym: Gym, pairs: list[tuple[int, str]]) -> list[reward_pb2.ScoreResult]:
    with RewardClient(gym.reward.address) as client:
        return client.score([PROBLEMS[i].candidate(f"d{n}", text) for n, (i, text) in enumerate(pairs)])


def test_verify_grades_rollouts_as_score_does_in_few_score_calls(gym: Gym) -> None:
    pairs = [(0, RIGHT), (0, HALF), (0, "no code"), (2, "VERDICT: TRUE"), (2, "VERDICT: FALSE"), (1, RIGHT),
             (3, RIGHT_CPP), (3, RIGHT), (4, "    return x + 1\n"), (4, "    return x\n")] * 3
    before = score_calls(gym)
    with ThreadPoolExecutor(len(pairs)) as pool:
        got = list(pool.map(lambda pair: verify(gym, *pair), pairs))
    calls = score_calls(gym) - before
    results = direct(gym, pairs)
    verdicts = [reward_pb2.Verdict.Name(result.verdict) for result in results]
    assert verdicts[:10] == ["PASS", "WRONG_ANSWER", "NO_CODE", "PASS", "WRONG_ANSWER", "INFRA_UNKNOWN_LANGUAGE",
                             "PASS", "COMPILE_ERROR", "PASS", "RUNTIME_ERROR"]
    for answer, result, verdict in zip(got, results, verdicts, strict=True):
        infra = verdict.startswith("INFRA_")
        assert (answer["verdict"], answer["detail"], answer["infra"]) == (verdict, result.detail, infra)
        assert answer["reward"] == (0.0 if infra else result.reward)
        assert (answer.get(nemo_gym.FAILURE_CLASS_KEY) == nemo_gym.FAILURE_CLASS) is infra
    assert 1 <= calls <= len(pairs) // 4, calls


def collected(gym: Gym, command: list[str]) -> None:
    done = subprocess.run([*command, *gym.head], cwd=SERVERS, env=gym.environ, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def test_the_documented_rollout_collection_keeps_infra_out_of_the_rollouts(gym: Gym, tmp_path: Path) -> None:
    output = tmp_path / "rollouts.jsonl"
    collect = with_values(documented("ng_collect_rollouts"), {"input_jsonl_fpath": str(gym.rows),
                                                              "output_jsonl_fpath": str(output)})
    repeats = int(next(arg for arg in collect if arg.startswith("+num_repeats=")).partition("=")[2])
    collected(gym, collect)
    rollouts = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    failures = [json.loads(line) for line in
                output.with_name("rollouts_failures.jsonl").read_text(encoding="utf-8").splitlines()]
    ids = [p.id for p in PROBLEMS]
    expected = {p.id: direct(gym, [(ids.index(p.id), COMPLETIONS[p.id])])[0] for p in PROBLEMS}
    assert sorted(r["problem"]["id"] for r in rollouts) == sorted(["add", "comm", "add-cpp", "inc"] * repeats)
    for rollout in rollouts:
        result = expected[rollout["problem"]["id"]]
        assert rollout["verdict"] == reward_pb2.Verdict.Name(result.verdict) and not rollout["infra"]
        assert rollout["reward"] == result.reward
        assert rollout["response"]["output"][-1]["content"][0]["text"] == COMPLETIONS[rollout["problem"]["id"]]
    assert [r["problem"]["id"] for r in failures] == ["add-klingon"] * repeats
    assert all(r["infra"] and r["verdict"] == "INFRA_UNKNOWN_LANGUAGE" for r in failures)
    metrics, = json.loads(output.with_name("rollouts_aggregate_metrics.json").read_text(encoding="utf-8"))
    assert metrics["key_metrics"]["mean/infra"] == pytest.approx(1 / len(PROBLEMS))
    assert metrics["key_metrics"]["mean/graded_reward"] == pytest.approx(
        sum(r["reward"] for r in rollouts) / len(rollouts))
    # resumed, NeMo Gym runs again only what failed: the infra rollouts, again into the failures file
    collected(gym, [*collect, "+resume_from_cache=true"])
    assert [json.loads(line)["problem"]["id"] for line in output.read_text(encoding="utf-8").splitlines()] == [
        r["problem"]["id"] for r in rollouts]
    assert [json.loads(line)["problem"]["id"] for line in output.with_name("rollouts_failures.jsonl").read_text(
        encoding="utf-8").splitlines()] == ["add-klingon"] * 2 * repeats


def test_the_documented_conversion_writes_rows_that_carry_the_problem(tmp_path: Path) -> None:
    command = documented("python -m integrations.problems")
    subprocess.run([sys.executable, *command[1:]], cwd=tmp_path, check=True, capture_output=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})
    rows = [json.loads(line) for line in next(tmp_path.glob("*.jsonl")).read_text(encoding="utf-8").splitlines()]
    expected = humaneval.problems(load_table())
    assert [row["responses_create_params"]["input"] for row in rows] == [problem.chat for problem in expected]
    assert {row["agent_ref"]["name"] for row in rows} == {nemo_gym.AGENT}
    assert [problem_jsonl.problem(row["problem"], "other", "row") for row in rows] == expected


def test_a_stopped_server_is_infra_never_the_models_zero(gym: Gym) -> None:
    """Last: it stops the module's reward server."""
    gym.reward.stop()
    answer = verify(gym, 0, RIGHT)
    assert answer["infra"] and answer["verdict"] == "INFRA_UNAVAILABLE"
    assert answer[nemo_gym.FAILURE_CLASS_KEY] == nemo_gym.FAILURE_CLASS
