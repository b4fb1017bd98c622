"""verifiers 0.4 / prime-rl: a taskset of our problems, rewarded by the reward server's verdict on the last reply.

verifiers finds a taskset by a top-level module name (`--env.taskset.id reward-server-tasks` imports
`reward_server_tasks`, which re-exports these classes through `__all__`). `load()` yields one task per problem
of a problems JSONL (benchmarks/FORMAT.md; `python -m integrations.problems` writes one from a benchmark); each
task carries its problem as `benchmarks.problem_jsonl.row`, so a trace scores exactly as eval grades.

The reward is the verdict on `trace.last_reply`, sent through the micro-batched async client
(`integrations.batching`), so a rollout worker's concurrent scorings share Score calls. A verdict that is not
the model's doing (INFRA_*), or a server that cannot be reached, raises `vf.SandboxError`: verifiers records it
on the trace (`stop_condition` "sandbox_error", `ok` false) instead of a reward, and prime-rl trains on no
errored trace, so the sample is masked, never scored 0.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import verifiers.v1 as vf

from benchmarks import problem_jsonl
from integrations import batching
from reward_server.client import CallFailed, ServerUnavailable
from reward_server.pb import reward_pb2
from reward_server.verdicts import Verdict

CALLER = "verifiers"


class ServerTaskConfig(vf.TaskConfig):
    server: str | None = None
    """The reward server's address (`--env.taskset.task.server`); unset: $REWARD_SERVER."""


class ProblemsConfig(vf.TasksetConfig):
    problems: Path | None = None
    """A problems JSONL (benchmarks/FORMAT.md), set with `--env.taskset.problems`. Required, but unset by default:
    verifiers' command line builds the config from the taskset id alone before it reads the flags."""
    task: ServerTaskConfig = ServerTaskConfig()


class ProblemData(vf.TaskData):
    problem: dict[str, Any]
    """The problem as `benchmarks.problem_jsonl.row` writes it: what the reward grades against."""


class ProblemTask(vf.Task[ProblemData, vf.State, ServerTaskConfig]):
    @property
    def key(self) -> str:
        return self.data.problem["id"]

    @vf.reward
    async def server_reward(self, trace: vf.Trace) -> float:
        """1.0 for PASS, 0.0 for the model's failures; raises SandboxError for infra (the sample is dropped)."""
        problem = problem_jsonl.problem(self.data.problem, "verifiers", f"task {self.key}")
        candidate = problem.candidate(f"{problem.id}#{trace.id}", trace.last_reply)
        try:
            result = await batching.score(candidate, address=self.config.server, caller=CALLER)
        except (ServerUnavailable, CallFailed) as error:   # a request the server refused stays our bug (TaskError)
            raise vf.SandboxError(f"reward server: {error}") from error
        verdict = Verdict[reward_pb2.Verdict.Name(result.verdict)]
        trace.info["verdict"] = verdict.name
        if verdict.is_infra:
            raise vf.SandboxError(f"reward server: {verdict.name}: {result.detail}")
        return result.reward


class ProblemsTaskset(vf.Taskset[ProblemTask, ProblemsConfig]):
    def load(self) -> Iterator[ProblemTask]:
        if self.config.problems is None:
            raise ValueError("reward-server-tasks needs a problems JSONL: set --env.taskset.problems")
        for problem in problem_jsonl.load(self.config.problems):
            yield ProblemTask(ProblemData(id=problem.id, name=problem.id, prompt=problem.chat,
                                          problem=problem_jsonl.row(problem)), self.config.task)

