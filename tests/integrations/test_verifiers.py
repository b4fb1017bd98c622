"""The verifiers 0.4 taskset (integrations/verifiers.py) inside verifiers' own venv, against a real reward server:
it loads by its id as verifiers loads a taskset, scores real replies as a direct Score call does, and an infra
verdict or a stopped server becomes verifiers' SandboxError on the trace (a masked sample, not a 0)."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import problem_jsonl
from integrations import problems as converter
from reward_server.client import RewardClient
from reward_server.pb import reward_pb2
from tests.integrations.framework_venv import run_script

SCRIPT = Path(__file__).with_name("verifiers_traces.py")
ADD = {"id": "add", "language": "python", "prompt": "Read two integers, print their sum.",
       "io_tests": [{"stdin": "2 3\n", "expected_stdout": "5\n"}, {"stdin": "10 -4\n", "expected_stdout": "6\n"}],
       "extraction": "last_block"}
CHAT = [{"role": "system", "content": "Answer in Python."}, {"role": "user", "content": ADD["prompt"]}]
PROBLEMS = [problem_jsonl.problem(row, "t", "row") for row in (
    {**ADD, "messages": CHAT}, {**ADD, "id": "add-klingon", "language": "klingon"},
    {"id": "comm", "prompt": "Does x * y = y * x imply x = x?", "expected": True})]
RIGHT = "Read both, add.\n```python\na, b = map(int, input().split())\nprint(a + b)\n```"
WRONG = "```python\nprint(5)\n```"


def score_traces(tmp_path: Path, address: str, replies: list[tuple[str, str]]) -> dict:
    problems = tmp_path / "problems.jsonl"
    converter.write(PROBLEMS, problems, "problems")
    done = run_script("verifiers", SCRIPT, str(problems), address, json.dumps(replies))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_taskset_loads_by_its_id_and_scores_real_replies_as_score_does(start_server, tmp_path: Path) -> None:
    server = start_server()
    replies = [("add", RIGHT), ("add", WRONG), ("add", "I would add them."), ("comm", "VERDICT: TRUE"),
               ("comm", "VERDICT: FALSE"), ("add-klingon", RIGHT)]
    got = score_traces(tmp_path, server.address, replies)
    assert (got["env"], got["taskset"]) == ("SingleAgentEnv", "ProblemsTaskset")
    assert (got["command"]["problems"], got["command"]["task"]["server"]) == (
        str(tmp_path / "problems.jsonl"), server.address)
    assert got["prompts"]["add"] == CHAT
    problems = {problem.id: problem for problem in PROBLEMS}
    with RewardClient(server.address) as client:
        direct = client.score([problems[pid].candidate(f"{pid}#{i}", reply) for i, (pid, reply) in enumerate(replies)])
    *scored, unknown = got["traces"]
    assert [t["verdict"] for t in got["traces"]] == [reward_pb2.Verdict.Name(r.verdict) for r in direct]
    assert [t["verdict"] for t in scored] == ["PASS", "WRONG_ANSWER", "NO_CODE", "PASS", "WRONG_ANSWER"]
    assert [t["rewards"] for t in scored] == [{"server_reward": r.reward} for r in direct[:-1]]
    assert all(t["errors"] == [] and t["stop_condition"] is None for t in scored)
    assert scored[0]["last_reply"] == RIGHT

    # an infra verdict is verifiers' SandboxError: the trace errored, no reward recorded
    assert unknown["verdict"] == "INFRA_UNKNOWN_LANGUAGE"
    assert (unknown["errors"], unknown["stop_condition"]) == (["SandboxError"], "sandbox_error")
    assert unknown["rewards"] == {"server_reward": None}


def test_a_stopped_server_is_the_frameworks_sandbox_error(start_server, tmp_path: Path) -> None:
    server = start_server()
    server.stop()
    (stopped,) = score_traces(tmp_path, server.address, [("add", RIGHT)])["traces"]
    assert (stopped["errors"], stopped["stop_condition"]) == (["SandboxError"], "sandbox_error")
    assert stopped["rewards"] == {"server_reward": None}
