"""Whether a language's programs can run here, what a sandboxed run's ending means for a grade, and how it reads in
a result's detail."""

from __future__ import annotations

import dataclasses

from reward_server.verdicts import Verdict
from sandboxes.backend import SandboxInfo
from sandboxes.languages import Language, LanguageTable, UnknownLanguage
from sandboxes.pool import SandboxPool
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


@dataclasses.dataclass(frozen=True)
class Unrunnable:
    """Why a language's programs cannot run here: never the model's fault."""

    verdict: Verdict
    detail: str
    info: SandboxInfo | None = None     # the sandbox that refused, when the language is known


async def runnable(table: LanguageTable, pool: SandboxPool, name: str,
                   role: str = "") -> tuple[Language, SandboxInfo] | Unrunnable:
    """The language `name` and its sandbox, if its programs can run here. `role` names it in a detail ("checker "
    for a checker's language)."""
    try:
        language = table.resolve(name)
    except UnknownLanguage:
        return Unrunnable(Verdict.INFRA_UNKNOWN_LANGUAGE, f"unknown {role}language {name!r}")
    info = await pool.describe(language)
    named = f"{role}language {language.key}" if role else language.key
    if not info.pinned:
        return Unrunnable(Verdict.INFRA_UNPINNED_LANGUAGE, f"{named}: no pinned image digest", info)
    if not info.ready:
        return Unrunnable(Verdict.INFRA_UNKNOWN_LANGUAGE, f"{named} not ready: {info.reason}", info)
    return language, info


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
