"""Per-completion results: an append-only JSONL (what makes eval resumable) and MultiPL-E's layout.

MultiPL-E writes one <name>.results.json.gz per problem with the problem's fields and a `results` list
of {program, status, stdout, stderr, exit_code, timestamp}; its pass@k counts status "OK" with exit 0.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import logging
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from benchmarks.problem import Problem
from reward_server.graders.function_style import assemble_program
from reward_server.pb import reward_pb2
from reward_server.verdicts import Verdict

log = logging.getLogger(__name__)

# Our verdicts in MultiPL-E's four statuses: a compile failure is its SyntaxError, every other failure
# that is not a timeout is an Exception (non-zero exit).
MULTIPL_E_STATUS = {"PASS": "OK", "COMPILE_ERROR": "SyntaxError", "TIMEOUT": "Timeout"}
EQUATION_LANGUAGE = "equation"   # the language an equational problem (which has none) is reported under


@dataclasses.dataclass(frozen=True)
class ResultRecord:
    id: str                 # "<problem id>/<sample>"
    problem_id: str
    benchmark: str
    language: str
    sample: int
    verdict: str            # reward_server.verdicts.Verdict name
    reward: float | None    # None: withheld (infra)
    detail: str
    elapsed_s: float
    sandbox: str
    completion: str

    @property
    def is_infra(self) -> bool:
        return Verdict[self.verdict].is_infra

    @classmethod
    def from_result(cls, problem: Problem, sample: int, completion: str,
                    result: reward_pb2.ScoreResult) -> ResultRecord:
        return cls(id=result.id, problem_id=problem.id, benchmark=problem.benchmark,
                   language=problem.language or EQUATION_LANGUAGE,
                   sample=sample, verdict=reward_pb2.Verdict.Name(result.verdict),
                   reward=result.reward if result.HasField("reward") else None, detail=result.detail,
                   elapsed_s=result.elapsed_s, sandbox=result.sandbox, completion=completion)


def drop_torn_tail(path: Path) -> None:
    """A run killed mid-write leaves a partial last line in a JSONL file: cut it so appends stay aligned."""
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        keep = data.rfind(b"\n") + 1
        log.warning("%s: dropping a torn last line (%d bytes)", path, len(data) - keep)
        path.write_bytes(data[:keep])


def candidate_id(problem_id: str, sample: int) -> str:
    return f"{problem_id}/{sample}"


class ResultStore:
    """results.jsonl: one record per line, appended as results arrive; re-reading it is how eval resumes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        drop_torn_tail(path)

    def load(self) -> list[ResultRecord]:
        if not self.path.exists():
            return []
        with self.path.open(encoding="utf-8") as stream:
            return [ResultRecord(**json.loads(line)) for line in stream if line.strip()]

    def append(self, records: Iterable[ResultRecord]) -> None:
        with self.path.open("a", encoding="utf-8") as stream:
            for record in records:
                stream.write(json.dumps(dataclasses.asdict(record)) + "\n")


def multipl_e_entry(problem: Problem, record: ResultRecord) -> dict[str, Any]:
    status = MULTIPL_E_STATUS.get(record.verdict, "Exception")
    return {"program": assemble_program(problem.code_prompt, record.completion, problem.stop_tokens, problem.tests),
            "status": status, "stdout": "", "stderr": "" if status == "OK" else record.detail,
            "exit_code": 0 if status == "OK" else (None if status == "Timeout" else 1),
            "timestamp": int(time.time())}


def write_multipl_e_results(directory: Path, problems: Iterable[Problem], records: Iterable[ResultRecord]) -> int:
    """One <id>.results.json.gz per function-style problem; infra results are left out (not run). Returns files."""
    by_problem: dict[str, list[ResultRecord]] = {}
    for record in records:
        if not record.is_infra:
            by_problem.setdefault(record.problem_id, []).append(record)
    directory.mkdir(parents=True, exist_ok=True)
    written = 0
    for problem in problems:
        if problem.kind != "function":
            continue
        entries = sorted(by_problem.get(problem.id, []), key=lambda r: r.sample)
        body = {"name": problem.id, "language": problem.language, "prompt": problem.code_prompt,
                "tests": problem.tests, "stop_tokens": list(problem.stop_tokens),
                "results": [multipl_e_entry(problem, r) for r in entries]}
        name = problem.id.replace("/", "_")
        with gzip.open(directory / f"{name}.results.json.gz", "wt", encoding="utf-8") as stream:
            json.dump(body, stream)
        written += 1
    return written
