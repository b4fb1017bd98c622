"""Run by tests/integrations/test_skyrl.py with SkyRL's own interpreter: the env registered by
docs/integrations.md's own lines, made through skyrl_gym's registry as SkyRL's generator makes it (`env_config`, and
the row less its prompt and env class, with the generator's `max_turns`, as `extras`), and stepped through each
episode's actions until it is done.

argv: the registration code, the rows JSONL, the server address, max_turns, then a JSON list of
[row index, [action...]];
prints a JSON list: per episode the first observation, each step's output and the env's metrics.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import skyrl_gym


def episode(row: dict, actions: list[str], server: str, max_turns: int) -> dict:
    extras = {key: value for key, value in row.items() if key not in ("prompt", "env_class")}
    extras["max_turns"] = max_turns
    env = skyrl_gym.make(row["env_class"], env_config={"server": server}, extras=extras)
    prompt, _ = env.init(row["prompt"])
    steps = []
    for action in actions:
        steps.append(env.step(action))
        if steps[-1]["done"]:
            break
    env.close()
    return {"prompt": prompt, "steps": steps, "metrics": env.get_metrics(), "type": type(env).__name__}


def main() -> None:
    registration, rows_path, server, max_turns, plan = sys.argv[1:]
    exec(registration, {})   # the docs' lines, as a SkyRL entry point runs them
    rows = [json.loads(line) for line in Path(rows_path).read_text(encoding="utf-8").splitlines()]
    print(json.dumps([episode(rows[index], actions, server, int(max_turns)) for index, actions in json.loads(plan)]))


if __name__ == "__main__":
    main()
