"""Scoring an eval run through the reward server, resumably.

Every completion becomes one candidate with id "<problem id>/<sample>". Results are appended to the
store as they stream back, so a re-run sends only what has no model verdict yet: candidates never scored
and those whose last result was an infra failure (those are retried, never counted as failures).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from benchmarks.problem import Problem
from reward_server.client import RewardClient
from reward_server.evaluation.completions import CompletionMap
from reward_server.evaluation.results import ResultRecord, ResultStore, candidate_id
from reward_server.pb import reward_pb2


@dataclasses.dataclass(frozen=True)
class Pending:
    problem: Problem
    sample: int
    completion: str

    @property
    def id(self) -> str:
        return candidate_id(self.problem.id, self.sample)


def latest(records: Sequence[ResultRecord]) -> dict[str, ResultRecord]:
    """The last record per candidate id (a retried infra failure is superseded by its retry)."""
    return {record.id: record for record in records}


def pending_work(problems: Sequence[Problem], completions: CompletionMap,
                 done: dict[str, ResultRecord]) -> list[Pending]:
    work = []
    for problem in problems:
        for sample, completion in enumerate(completions.get(problem.id, [])):
            item = Pending(problem, sample, completion)
            previous = done.get(item.id)
            if previous is None or previous.is_infra:
                work.append(item)
    return work


def score(client: RewardClient, work: Sequence[Pending], store: ResultStore, *, batch_size: int,
          timeout_s: float | None = None, progress: bool = True) -> int:
    """Score `work` in batches of `batch_size`, appending each result as it arrives; returns how many."""
    from tqdm import tqdm

    scored = 0
    with tqdm(total=len(work), unit="completion", disable=not progress, desc="scoring") as bar:
        for start in range(0, len(work), batch_size):
            batch = work[start:start + batch_size]
            candidates = [item.problem.candidate(item.id, item.completion) for item in batch]
            for result in client.score_stream(candidates, priority=reward_pb2.EVAL, caller="eval",
                                              timeout_s=timeout_s):
                item = batch[result.index]
                store.append([ResultRecord.from_result(item.problem, item.sample, item.completion, result)])
                scored += 1
                bar.update(1)
    return scored
