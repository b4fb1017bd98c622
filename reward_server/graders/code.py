"""Grading one code candidate: extract, assemble, compile once, run the tests, decide one verdict.

The first failing test decides (timeout, then error, then wrong output, as the references do). An infra
failure never outranks a model failure already observed, and never becomes one. A guarded function-style
program that exits 0 without its end-of-tests marker exited early (function_style.py, end_marker.py), and so
does a call-based one (call_based.py). stdin/stdout tests with a checker (checkers.py) are checked once every
test has run, in a sandbox of the checker's own.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import time
from typing import Any

from benchmarks.call_values import KINDS
from reward_server.graders import call_based, end_marker, split_tests
from reward_server.graders.checkers import Check, Checkers, CheckerSpec, Member, References
from reward_server.graders.comparators import Comparator, compare, stdin_for
from reward_server.graders.extraction import ExtractionStyle, extract_code
from reward_server.graders.function_style import function_program
from reward_server.graders.runs import RUN_VERDICTS, Unrunnable, describe_run, excerpt, runnable
from reward_server.verdicts import Verdict
from sandboxes.backend import SandboxError, SourceNameError, UnsupportedWorkspace
from sandboxes.languages import Language, LanguageTable
from sandboxes.pool import SandboxPool
from sandboxes.results import Limits, RunResult, RunStatus
from sandboxes.scheduler import DeadlineExceeded, Overloaded

log = logging.getLogger(__name__)

THREADED_COMPARE_CHARS = 1 << 16

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
    function_name: str = ""                           # call-based io_tests (JSON arguments and result) when set
    checker: CheckerSpec | None = None                # io_tests judged by this checker instead of the comparator


@dataclasses.dataclass(frozen=True)
class TestGrade:
    index: int
    verdict: Verdict
    elapsed_s: float
    detail: str = ""
    # what the test's run used, as its backend measured it (RunResult); None: not measured
    cpu_s: float | None = None
    peak_memory_bytes: int | None = None

    @classmethod
    def of_run(cls, index: int, verdict: Verdict, result: RunResult, detail: str = "") -> TestGrade:
        """The grade of a test that ran, with what its run used (reported per test, for tuning limits)."""
        return cls(index, verdict, result.elapsed_s, detail, result.cpu_s, result.peak_memory_bytes)


@dataclasses.dataclass(frozen=True)
class CodeGrade:
    verdict: Verdict
    detail: str = ""
    extracted: str = ""
    sandbox: str = ""
    tests: tuple[TestGrade, ...] = ()
    stages: dict[str, float] = dataclasses.field(default_factory=dict)   # queue/compile/run seconds (metrics)


@dataclasses.dataclass(frozen=True)
class _Program:
    """What runs for one candidate: the source (and files beside it), each test's stdin, and what a test's run must
    show: exit 0 (expected None), this stdout (a str) or, call-based, this value."""

    source: str
    stdins: list[str]
    expected: list[Any]
    files: dict[str, str] = dataclasses.field(default_factory=dict)
    marker: str = ""            # the end-of-tests marker stderr must carry after exit 0; "" when unguarded
    call: bool = False
    tests: str | None = None    # function style, split: the tests' own source (split_tests.py)


def decide(tests: list[TestGrade]) -> TestGrade | None:
    """The deciding test: the first model failure, else the first infra failure, else None (all passed)."""
    failures = [t for t in tests if t.verdict is not Verdict.PASS]
    model = [t for t in failures if not t.verdict.is_infra]
    return (model or failures or [None])[0]


class CodeGrader:
    def __init__(self, table: LanguageTable, pool: SandboxPool) -> None:
        for lang in table:
            if lang.call_harness is not None and set(lang.call_harness.values) - set(KINDS):
                raise ValueError(f"{lang.key}: call harness values must be among {KINDS}")
        self.table = table
        self.pool = pool
        self.references = References()  # each checker's finding on each test's reference answer, across requests

    def checkers(self, *, priority: int, caller: str, deadline: float | None) -> Checkers:
        """The checkers of one request: candidates that name the same checker share one compile of it."""
        return Checkers(self.table, self.pool, self.references, priority=priority, caller=caller,
                        deadline=deadline)

    async def grade(self, job: CodeJob, *, priority: int, caller: str, deadline: float | None,
                    checkers: Checkers | None = None) -> CodeGrade:
        if job.checker is None:
            return await self._grade(job, None, priority=priority, caller=caller, deadline=deadline)
        checkers = checkers or self.checkers(priority=priority, caller=caller, deadline=deadline)
        with checkers.session(job.checker).member() as member:  # from the start: its checker waits for it
            return await self._grade(job, member, priority=priority, caller=caller, deadline=deadline)

    async def _grade(self, job: CodeJob, member: Member | None, *, priority: int, caller: str,
                     deadline: float | None) -> CodeGrade:
        found = await runnable(self.table, self.pool, job.language)
        if isinstance(found, Unrunnable):
            return CodeGrade(found.verdict, found.detail, sandbox=found.info.sandbox_id if found.info else "")
        language, info = found
        code = extract_code(job.completion, job.extraction)
        if code is None or not code.strip():
            return CodeGrade(Verdict.NO_CODE, "no code found in the completion", sandbox=info.sandbox_id)
        try:
            program = await self._program(language, code, job)
        except (call_based.UnsupportedTest, split_tests.EntryNotFound) as exc:
            return CodeGrade(Verdict.INFRA_UNSUPPORTED_TEST, str(exc), extracted=code, sandbox=info.sandbox_id)
        limits = Limits(timeout_s=job.timeout_s or language.timeout_s,
                        memory_mb=job.memory_mb or language.memory_mb)
        stages: dict[str, float] = {}
        try:
            verdict, detail, tests = await self._execute(language, program, job, member, limits, stages,
                                                         priority=priority, caller=caller, deadline=deadline)
        except DeadlineExceeded as exc:
            verdict, detail, tests = Verdict.INFRA_DEADLINE, str(exc), []
        except Overloaded as exc:
            verdict, detail, tests = Verdict.INFRA_OVERLOADED, str(exc), []
        except UnsupportedWorkspace as exc:
            verdict, detail, tests = Verdict.INFRA_UNSUPPORTED_TEST, str(exc), []
        except SourceNameError as exc:   # the program's own file cannot be written: as a compiler would refuse it
            verdict, detail, tests = Verdict.COMPILE_ERROR, str(exc), []
        except SandboxError as exc:
            log.warning("sandbox error for %s: %s", language.key, exc)
            verdict, detail, tests = Verdict.INFRA_SANDBOX_ERROR, f"sandbox error: {exc}", []
        return CodeGrade(verdict, detail, extracted=code, sandbox=info.sandbox_id,
                         tests=tuple(tests) if job.run_all_tests else (), stages=stages)

    @staticmethod
    async def _program(language: Language, code: str, job: CodeJob) -> _Program:
        if job.tests:
            program = function_program(language, job.prompt, code, job.stop_tokens, job.tests)
            return _Program(program.source, [""], [None], program.files, program.marker,
                            tests=program.tests or None)
        if job.function_name:
            size = sum(len(stdin) + len(expected) for stdin, expected in job.io_tests)
            if size > THREADED_COMPARE_CHARS:  # megabytes of JSON take a while to read: off the loop
                tests = await asyncio.to_thread(call_based.call_tests, language, job.io_tests)
            else:
                tests = call_based.call_tests(language, job.io_tests)
            call = call_based.call_program(language, job.prompt + code, job.function_name)
            return _Program(call.source, [t.arguments for t in tests], [t.expected for t in tests], call.files,
                            call.marker, call=True)
        return _Program(code, [stdin_for(job.comparator, stdin) for stdin, _ in job.io_tests],
                        [expected for _, expected in job.io_tests])

    async def _execute(
        self, language: Language, program: _Program, job: CodeJob, member: Member | None, limits: Limits,
        stages: dict[str, float], *, priority: int, caller: str, deadline: float | None,
    ) -> tuple[Verdict, str, list[TestGrade]]:
        mark = time.monotonic()
        tests: list[TestGrade] = []
        checks: list[tuple[TestGrade, Check]] = []    # with a checker: the runs that ended well, to be checked
        async with self.pool.workspace(language, program.source, files=program.files, tests=program.tests,
                                       priority=priority, caller=caller, deadline=deadline) as workspace:
            stages["queue"], mark = time.monotonic() - mark, time.monotonic()
            compiled = await workspace.compile(deadline)
            if compiled is not None:
                stages["compile"], mark = time.monotonic() - mark, time.monotonic()
            if compiled is not None and compiled.status is not RunStatus.OK:
                return COMPILE_VERDICTS[compiled.status], describe_run(compiled), []
            for index, (stdin, expected) in enumerate(zip(program.stdins, program.expected, strict=True)):
                result = await workspace.run(stdin.encode(), limits, deadline)
                if member is not None and result.status is RunStatus.OK:
                    checks.append((TestGrade.of_run(index, Verdict.PASS, result),
                                   Check(stdin, result.stdout.decode("utf-8", "replace"), expected)))
                    continue
                tests.append(await self._grade_run(index, result, expected, job.comparator, program))
                if tests[-1].verdict is not Verdict.PASS and not job.run_all_tests:
                    break
            stages["run"] = time.monotonic() - mark
        if checks:
            assert member is not None
            outcomes = await member.check([check for _, check in checks], not job.run_all_tests)
            tests += [dataclasses.replace(ran, verdict=checked.verdict, detail=checked.detail)
                      for (ran, _), checked in zip(checks, outcomes, strict=False)]
            tests.sort(key=lambda test: test.index)
        deciding = decide(tests)
        if deciding is None:
            return Verdict.PASS, f"{len(tests)} test(s) passed", tests
        prefix = f"test {deciding.index}: " if len(program.stdins) > 1 else ""
        return deciding.verdict, prefix + deciding.detail, tests

    @staticmethod
    async def _grade_run(index: int, result: RunResult, expected: Any, comparator: Comparator,
                         program: _Program) -> TestGrade:
        if program.marker:
            cannot = (split_tests.unsupported(result.stderr.decode("utf-8", "replace"), program.marker)
                      if program.tests is not None else None)
            if cannot is not None:
                return TestGrade.of_run(index, Verdict.INFRA_UNSUPPORTED_TEST, result,
                                        f"the tests pass a value the wire cannot carry: {cannot}")
            finished, stderr = end_marker.take(result.stderr, program.marker)
            result = dataclasses.replace(result, stderr=stderr)
            if result.status is RunStatus.OK and not finished:
                detail = "; ".join([end_marker.EXITED_EARLY_DETAIL, *([excerpt(stderr)] if stderr else [])])
                return TestGrade.of_run(index, Verdict.EXITED_EARLY, result, detail)
        if result.status is not RunStatus.OK:
            return TestGrade.of_run(index, RUN_VERDICTS[result.status], result, describe_run(result))
        if expected is None:
            return TestGrade.of_run(index, Verdict.PASS, result)
        got = result.stdout.decode("utf-8", "replace")
        # a lenient comparison of megabytes of numbers takes seconds, and so does reading a huge result: off the
        # loop, so other requests (and health checks) keep being served meanwhile
        if program.call:
            judge = functools.partial(call_based.judge, got, program.marker, expected)
            verdict, detail = await asyncio.to_thread(judge) if len(got) > THREADED_COMPARE_CHARS else judge()
            return TestGrade.of_run(index, verdict, result, detail)
        if len(got) + len(expected) > THREADED_COMPARE_CHARS:
            same = await asyncio.to_thread(compare, comparator, got, expected)
        else:
            same = compare(comparator, got, expected)
        if same:
            return TestGrade.of_run(index, Verdict.PASS, result)
        return TestGrade.of_run(index, Verdict.WRONG_ANSWER, result,
                                f"expected {excerpt(expected, 200)!r}, got {excerpt(got, 200)!r}")
