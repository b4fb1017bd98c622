"""What a sandboxed run's ending means for a grade, and how it reads in a result's detail."""

from __future__ import annotations

from reward_server.verdicts import Verdict
from sandboxes.results import RunResult, RunStatus

DETAIL_CHARS = 1000

RUN_VERDICTS = {
    RunStatus.EXIT_NONZERO: Verdict.RUNTIME_ERROR,
    RunStatus.TIMEOUT: Verdict.TIMEOUT,
    RunStatus.MEMORY_LIMIT: Verdict.MEMORY_LIMIT,
    RunStatus.OUTPUT_LIMIT: Verdict.OUTPUT_LIMIT,
    RunStatus.DEADLINE: Verdict.INFRA_DEADLINE,
    RunStatus.SANDBOX_ERROR: Verdict.INFRA_SANDBOX_ERROR,
}


def excerpt(data: bytes | str, limit: int = DETAIL_CHARS) -> str:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return text if len(text) <= limit else "…" + text[-limit:]


def describe_run(result: RunResult) -> str:
    parts = [result.detail] if result.detail else []
    if result.exit_code not in (None, 0) and f"exit code {result.exit_code}" not in result.detail:
        parts.append(f"exit code {result.exit_code}")
    if result.stderr:
        parts.append(excerpt(result.stderr))
    return "; ".join(parts)
