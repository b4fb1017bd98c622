"""Run by tests/integrations/test_verifiers.py with verifiers' own interpreter: the environment built from our
taskset id as `vf-eval` and prime-rl build it (`resolve_env_config`, `load_environment`), and traces scored as
verifiers scores a finished trace offline (`vf-replay`'s loop: `Task.score`, an error recorded on the trace).

argv: the problems JSONL, the server address, then a JSON list of [problem id, reply]; prints a JSON object: the
taskset config `vf-eval` resolves from its flags, the environment's and taskset's types, each task's key and
prompt, and per reply its rewards, verdict and error.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path

import verifiers.v1 as vf
from verifiers.v1.cli.eval.main import main as vf_eval
from verifiers.v1.graph import MessageNode


def trace(task: vf.Task, reply: str) -> vf.Trace:
    """The trace of a rollout that asked the task's prompt and got `reply` from the model."""
    prompt = [MessageNode(message=message) for message in task.data.prompt]
    answer = MessageNode(message=vf.AssistantMessage(content=reply), parent=len(prompt) - 1, sampled=True)
    return vf.Trace(task=vf.TraceTask(type=type(task).__name__, data=task.data, key=task.key, hash=task.hash),
                    agent=vf.AgentInfo(config=vf.AgentConfig()), nodes=[*prompt, answer])


async def scored(task: vf.Task, reply: str) -> dict:
    scoring = trace(task, reply)
    try:
        await task.score(scoring)
    except Exception as error:   # what vf-replay does with a scoring failure
        scoring.record_error(error)
    return {"rewards": {name: None if value is None else value.score for name, value in scoring.rewards.items()},
            "verdict": scoring.info.get("verdict"), "errors": [error.type for error in scoring.errors],
            "stop_condition": scoring.stop_condition, "last_reply": scoring.last_reply}


def eval_command_config(problems: str, address: str) -> dict:
    """The taskset config `vf-eval` resolves from its command line (a dry run writes it and stops)."""
    with tempfile.TemporaryDirectory() as out:
        vf_eval(["reward-server-tasks", "--env.taskset.problems", problems, "--env.taskset.task.server", address,
                 "--dry-run", "--output-dir", out])
        (written,) = Path(out).glob("**/eval.json")
        return json.loads(written.read_text())["env"]["taskset"]


async def main() -> None:
    problems, address, replies = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    command = eval_command_config(problems, address)
    config = vf.resolve_env_config({"taskset": {"id": "reward-server-tasks", "problems": problems,
                                                "task": {"server": address}}})
    env = vf.load_environment(config)
    tasks = {task.key: task for task in env.taskset}
    results = await asyncio.gather(*(scored(tasks[problem_id], reply) for problem_id, reply in replies))
    print(json.dumps({"command": command, "env": type(env).__name__, "taskset": type(env.taskset).__name__,
                      "prompts": {key: [m.model_dump() for m in task.data.prompt] for key, task in tasks.items()},
                      "traces": results}))


if __name__ == "__main__":
    asyncio.run(main())
