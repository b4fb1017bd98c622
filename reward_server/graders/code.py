"""Grading one code candidate: extract, assemble, compile once, run the tests, decide one verdict.

The first failing test decides (timeout, then error, then wrong output, as the references do). An infra
failure never outranks a model failure already observed, and never becomes one. A guarded function-style
program that exits 0 without its end-of-tests marker exited early (function_style.py, end_marker.py).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time

from reward_server.graders import end_marker
from reward_server.graders.comparators import Comparator, compare, stdin_for
from reward_server.graders.extraction import ExtractionStyle, extract_code
from reward_server.graders.function_style import GUARDS, function_program
from reward_server.verdicts import Verdict
from sandboxes.backend import SandboxError
from sandboxes.languages import Language, LanguageTable, UnknownLanguage
from sandboxes.pool import SandboxPool
from sandboxes.results import Limits, RunResult, RunStatus
from sandboxes.scheduler import DeadlineExceeded, Overloaded

log = logging.getLogger(__name__)

DETAIL_CHARS = 1000
THREADED_COMPARE_CHARS = 1 << 16

RUN_VERDICTS = {
    RunStatus.EXIT_NONZERO: Verdict.RUNTIME_ERROR,
    RunStatus.TIMEOUT: Verdict.TIMEOUT,
    RunStatus.MEMORY_LIMIT: Verdict.MEMORY_LIMIT,
    RunStatus.OUTPUT_LIMIT: Verdict.OUTPUT_LIMIT,
    RunStatus.DEADLINE: Verdict.INFRA_DEADLINE,
    RunStatus.SANDBOX_ERROR: Verdict.INFRA_SANDBOX_ERROR,
}
# A compiler that crashes, runs out of time or floods output on the model's code: the code's fault.
COMPILE_VERDICTS = {**dict.fromkeys(RUN_VERDICTS, Verdict.COMPILE_ERROR),
                    RunStatus.DEADLINE: Verdict.INFRA_DEADLINE,
                    RunStatus.SANDBOX_ERROR: Verdict.INFRA_SANDBOX_ERROR}


@dataclasses.dataclass(frozen=True)
class CodeJob:
    language: str
    completion: str
    extraction: ExtractionStyle = ExtractionStyle.NONE
    prompt: str = ""
    stop_tokens: tuple[str, ...] = ()
    tests: str = ""                                   # function style when set
    io_tests: tuple[tuple[str, str], ...] = ()        # (stdin, expected stdout) otherwise
    comparator: Comparator = Comparator.EXACT
    timeout_s: float = 0.0                            # 0 = the language default
    memory_mb: int = 0
    run_all_tests: bool = False


@dataclasses.dataclass(frozen=True)
class TestGrade:
    index: int
    verdict: Verdict
    elapsed_s: float
    detail: str = ""


@dataclasses.dataclass(frozen=True)
class CodeGrade:
    verdict: Verdict
    detail: str = ""
    extracted: str = ""
    sandbox: str = ""
    tests: tuple[TestGrade, ...] = ()
    stages: dict[str, float] = dataclasses.field(default_factory=dict)   # queue/compile/run seconds (metrics)


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


def decide(tests: list[TestGrade]) -> TestGrade | None:
    """The deciding test: the first model failure, else the first infra failure, else None (all passed)."""
    failures = [t for t in tests if t.verdict is not Verdict.PASS]
    model = [t for t in failures if not t.verdict.is_infra]
    return (model or failures or [None])[0]


class CodeGrader:
    def __init__(self, table: LanguageTable, pool: SandboxPool) -> None:
        unknown = sorted(f"{lang.key}: {lang.guard}" for lang in table if lang.guard and lang.guard not in GUARDS)
        if unknown:
            raise ValueError(f"the language table names guards that do not exist: {unknown}")
        self.table = table
        self.pool = pool

    async def grade(self, job: CodeJob, *, priority: int, caller: str, deadline: float | None) -> CodeGrade:
        try:
            language = self.table.resolve(job.language)
        except UnknownLanguage:
            return CodeGrade(Verdict.INFRA_UNKNOWN_LANGUAGE, f"unknown language {job.language!r}")
        info = await self.pool.describe(language)
        if not info.pinned:
            return CodeGrade(Verdict.INFRA_UNPINNED_LANGUAGE, f"{language.key}: no pinned image digest",
                             sandbox=info.sandbox_id)
        if not info.ready:
            return CodeGrade(Verdict.INFRA_UNKNOWN_LANGUAGE, f"{language.key} not ready: {info.reason}",
                             sandbox=info.sandbox_id)
        code = extract_code(job.completion, job.extraction)
        if code is None or not code.strip():
            return CodeGrade(Verdict.NO_CODE, "no code found in the completion", sandbox=info.sandbox_id)
        marker = ""
        if job.tests:
            program = function_program(language, job.prompt, code, job.stop_tokens, job.tests)
            source, marker = program.source, program.marker
            cases: list[tuple[str, str | None]] = [(program.stdin, None)]
        else:
            source = code
            cases = [(stdin_for(job.comparator, stdin), expected) for stdin, expected in job.io_tests]
        limits = Limits(timeout_s=job.timeout_s or language.timeout_s,
                        memory_mb=job.memory_mb or language.memory_mb)
        stages: dict[str, float] = {}
        try:
            verdict, detail, tests = await self._execute(language, source, cases, marker, job, limits, stages,
                                                         priority=priority, caller=caller, deadline=deadline)
        except DeadlineExceeded as exc:
            verdict, detail, tests = Verdict.INFRA_DEADLINE, str(exc), []
        except Overloaded as exc:
            verdict, detail, tests = Verdict.INFRA_OVERLOADED, str(exc), []
        except SandboxError as exc:
            log.warning("sandbox error for %s: %s", language.key, exc)
            verdict, detail, tests = Verdict.INFRA_SANDBOX_ERROR, f"sandbox error: {exc}", []
        return CodeGrade(verdict, detail, extracted=code, sandbox=info.sandbox_id,
                         tests=tuple(tests) if job.run_all_tests else (), stages=stages)

    async def _execute(
        self, language: Language, source: str, cases: list[tuple[str, str | None]], marker: str, job: CodeJob,
        limits: Limits, stages: dict[str, float], *, priority: int, caller: str, deadline: float | None,
    ) -> tuple[Verdict, str, list[TestGrade]]:
        mark = time.monotonic()
        async with self.pool.workspace(language, source, priority=priority, caller=caller,
                                       deadline=deadline) as workspace:
            stages["queue"], mark = time.monotonic() - mark, time.monotonic()
            compiled = await workspace.compile(deadline)
            if compiled is not None:
                stages["compile"], mark = time.monotonic() - mark, time.monotonic()
            if compiled is not None and compiled.status is not RunStatus.OK:
                return COMPILE_VERDICTS[compiled.status], describe_run(compiled), []
            tests: list[TestGrade] = []
            for index, (stdin, expected) in enumerate(cases):
                result = await workspace.run(stdin.encode(), limits, deadline)
                tests.append(await self._grade_run(index, result, expected, job.comparator, marker))
                if tests[-1].verdict is not Verdict.PASS and not job.run_all_tests:
                    break
            stages["run"] = time.monotonic() - mark
        deciding = decide(tests)
        if deciding is None:
            return Verdict.PASS, f"{len(tests)} test(s) passed", tests
        prefix = f"test {deciding.index}: " if len(cases) > 1 else ""
        return deciding.verdict, prefix + deciding.detail, tests

    @staticmethod
    async def _grade_run(index: int, result: RunResult, expected: str | None, comparator: Comparator,
                         marker: str) -> TestGrade:
        if marker:
            finished, stderr = end_marker.take(result.stderr, marker)
            result = dataclasses.replace(result, stderr=stderr)
            if result.status is RunStatus.OK and not finished:
                detail = "; ".join([end_marker.EXITED_EARLY_DETAIL, *([excerpt(stderr)] if stderr else [])])
                return TestGrade(index, Verdict.EXITED_EARLY, result.elapsed_s, detail)
        if result.status is not RunStatus.OK:
            return TestGrade(index, RUN_VERDICTS[result.status], result.elapsed_s, describe_run(result))
        if expected is None:
            return TestGrade(index, Verdict.PASS, result.elapsed_s)
        got = result.stdout.decode("utf-8", "replace")
        # a lenient comparison of megabytes of numbers takes seconds: off the loop, so other requests
        # (and health checks) keep being served meanwhile
        if len(got) + len(expected) > THREADED_COMPARE_CHARS:
            same = await asyncio.to_thread(compare, comparator, got, expected)
        else:
            same = compare(comparator, got, expected)
        if same:
            return TestGrade(index, Verdict.PASS, result.elapsed_s)
        return TestGrade(index, Verdict.WRONG_ANSWER, result.elapsed_s,
                         f"expected {excerpt(expected, 200)!r}, got {excerpt(got, 200)!r}")
