"""The gRPC servicer: validates at the edge, grades each candidate independently, maps results to protobuf."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import time
import uuid
from collections.abc import AsyncIterator

import grpc
from google.protobuf import json_format

from reward_server.graders.checkers import Checkers, CheckerSpec
from reward_server.graders.code import CodeGrade, CodeGrader, CodeJob, TestGrade
from reward_server.graders.comparators import Comparator
from reward_server.graders.counterexample import grade_counterexample
from reward_server.graders.equational import grade_equation
from reward_server.graders.extraction import ExtractionStyle
from reward_server.metrics import ServerMetrics
from reward_server.pb import reward_pb2, reward_pb2_grpc
from reward_server.result_cache import ResultCache, task_key
from reward_server.validation import InvalidRequest, validate_request
from reward_server.verdicts import Verdict
from sandboxes.backend import Backend
from sandboxes.languages import LanguageTable, UnknownLanguage

log = logging.getLogger(__name__)

# The reply leaves this long before the caller's deadline, to travel back; what is not graded by then is INFRA_DEADLINE.
REPLY_MARGIN_S = 0.05
# Runs are cut this long before the reply leaves (at most a quarter of the time the caller gave): a run cut at the
# graders' deadline is killed, swept and graded in that time, so its verdict makes the reply.
CUT_MARGIN_S = 0.5
MIB = 1 << 20   # TestOutcome.peak_memory_mb is in the unit of CodeTask.memory_mb

EXTRACTIONS = {
    reward_pb2.EXTRACTION_NONE: ExtractionStyle.NONE,
    reward_pb2.FIRST_BLOCK: ExtractionStyle.FIRST_BLOCK,
    reward_pb2.LAST_BLOCK: ExtractionStyle.LAST_BLOCK,
}
COMPARATORS = {
    reward_pb2.COMPARATOR_UNSPECIFIED: Comparator.EXACT,
    reward_pb2.EXACT: Comparator.EXACT,
    reward_pb2.LENIENT: Comparator.LENIENT,
    reward_pb2.LCB: Comparator.LCB,
}
ScoreResult = reward_pb2.ScoreResult
VERDICTS = {verdict: reward_pb2.Verdict.Value(verdict.name) for verdict in Verdict}
# (proto enum value, reward) per verdict: looked up once per equation instead of recomputed
EQUATION_FIELDS = {verdict: (VERDICTS[verdict], verdict.reward) for verdict in Verdict}


def code_job(task: reward_pb2.CodeTask) -> CodeJob:
    return CodeJob(
        language=task.language.strip(),
        completion=task.completion,
        extraction=EXTRACTIONS[task.extraction],
        prompt=task.prompt,
        stop_tokens=tuple(task.stop_tokens),
        tests=task.tests,
        io_tests=tuple((t.stdin, t.expected_stdout) for t in task.io_tests),
        comparator=COMPARATORS[task.comparator],
        timeout_s=task.timeout_s,
        memory_mb=task.memory_mb,
        run_all_tests=task.run_all_tests,
        function_name=task.function_name,
        checker=CheckerSpec(task.checker.language.strip(), task.checker.source) if task.HasField("checker") else None,
    )


def outcome_message(test: TestGrade) -> reward_pb2.TestOutcome:
    """A test's outcome; what its run used is left unset where it was not measured (None leaves a field unset)."""
    peak_mb = None if test.peak_memory_bytes is None else test.peak_memory_bytes / MIB
    return reward_pb2.TestOutcome(index=test.index, verdict=VERDICTS[test.verdict], elapsed_s=test.elapsed_s,
                                  detail=test.detail, cpu_s=test.cpu_s, peak_memory_mb=peak_mb)


def result_message(index: int, candidate_id: str, verdict: Verdict, *, detail: str = "", extracted: str = "",
                   sandbox: str = "", elapsed_s: float = 0.0, tests=()) -> reward_pb2.ScoreResult:
    result = reward_pb2.ScoreResult(
        id=candidate_id, index=index, verdict=VERDICTS[verdict], detail=detail, extracted=extracted,
        sandbox=sandbox, elapsed_s=elapsed_s,
        tests=[outcome_message(t) for t in tests],
    )
    if (reward := verdict.reward) is not None:
        result.reward = reward
    return result


class RewardService(reward_pb2_grpc.RewardServiceServicer):
    def __init__(self, table: LanguageTable, grader: CodeGrader, backend: Backend, metrics: ServerMetrics,
                 cache: ResultCache) -> None:
        self.table = table
        self.cache = cache
        self.grader = grader
        self.backend = backend
        self.metrics = metrics

    def _language_label(self, name: str) -> str:
        """The metrics label: the table's key, so aliases share one series and junk cannot add series."""
        try:
            return self.table.resolve(name).key
        except UnknownLanguage:
            return "unknown"

    async def Score(self, request: reward_pb2.ScoreRequest,
                    context: grpc.aio.ServicerContext) -> reward_pb2.ScoreResponse:
        async with self._batch(request, context, "Score") as (results, graded):
            async for result in graded:
                results[result.index] = result
        return reward_pb2.ScoreResponse(results=results)

    async def ScoreStream(self, request: reward_pb2.ScoreRequest,
                          context: grpc.aio.ServicerContext) -> AsyncIterator[reward_pb2.ScoreResult]:
        async with self._batch(request, context, "ScoreStream") as (results, graded):
            for result in results:
                if result is not None:
                    yield result
            async for result in graded:
                yield result

    async def ListLanguages(self, request: reward_pb2.ListLanguagesRequest,
                            context: grpc.aio.ServicerContext) -> reward_pb2.ListLanguagesResponse:
        languages = []
        infos = await asyncio.gather(*(self.grader.pool.describe(language) for language in self.table))
        for language, info in zip(self.table, infos, strict=True):
            languages.append(reward_pb2.Language(
                key=language.key, aliases=language.aliases, version=info.version, sandbox=info.sandbox_id,
                ready=info.ready and info.pinned,
                reason=info.reason or ("" if info.pinned else "no pinned image digest")))
        limits = self.backend.limits()
        return reward_pb2.ListLanguagesResponse(backend=self.backend.name, languages=languages, limits=limits.mode,
                                                weaker_limits=limits.weaker)

    @contextlib.asynccontextmanager
    async def _batch(self, request: reward_pb2.ScoreRequest, context: grpc.aio.ServicerContext, method: str
                     ) -> AsyncIterator[tuple[list[reward_pb2.ScoreResult | None], AsyncIterator[ScoreResult]]]:
        """Validate, grade the equations at once and start the code candidates; on exit cancel what is left.

        Yields (results in request order, None where a code candidate is still running; the running ones' results as
        they finish, then, once the reply must leave before the caller's deadline, INFRA_DEADLINE for the rest: one
        slow program never costs its batch the call).
        """
        request_id = uuid.uuid4().hex[:12]
        try:
            validate_request(request)
        except InvalidRequest as exc:
            log.info("request=%s invalid: %s", request_id, exc)
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        started = time.monotonic()
        priority = request.priority or reward_pb2.TRAINING
        caller = request.caller or context.peer()
        remaining = context.time_remaining()
        reply_by = deadline = None
        if remaining is not None:
            reply_by = asyncio.get_running_loop().time() + remaining - REPLY_MARGIN_S
            deadline = reply_by - min(CUT_MARGIN_S, remaining / 4)
        results: list[reward_pb2.ScoreResult | None] = []
        code_tasks: dict[asyncio.Future, tuple[int, str, str]] = {}     # -> index, candidate id, metrics label
        equations: list[Verdict] = []
        checkers = self.grader.checkers(priority=priority, caller=caller, deadline=deadline)
        self.metrics.request_started(method)
        try:
            for index, candidate in enumerate(request.candidates):
                if candidate.HasField("equation"):  # the hot path: tens of thousands a second, kept lean
                    task = candidate.equation
                    verdict, extracted = grade_equation(task.response, task.expected)
                    if task.require_counterexample and verdict is Verdict.PASS and not task.expected:
                        results.append(None)    # its magma is checked off the loop
                        code_tasks[asyncio.ensure_future(self._grade_counterexample(index, candidate))] = (
                            index, candidate.id, "equation")
                        continue
                    equations.append(verdict)
                    value, reward = EQUATION_FIELDS[verdict]
                    results.append(reward_pb2.ScoreResult(id=candidate.id, index=index, verdict=value,
                                                          extracted=extracted, reward=reward))
                else:
                    results.append(None)
                    label = self._language_label(candidate.code.language)
                    self.metrics.candidates_received(label)
                    code_tasks[asyncio.ensure_future(self._grade_code(
                        index, candidate, checkers, priority=priority, caller=caller, deadline=deadline))] = (
                        index, candidate.id, label)
            if equations:
                counts = collections.Counter(equations)
                self.metrics.observe_batch("equation", {v.name: n for v, n in counts.items()},
                                           time.monotonic() - started)
            yield results, self._graded(code_tasks, reply_by, started)
        finally:
            for task in code_tasks:
                task.cancel()
            self.metrics.request_finished(method, time.monotonic() - started)
        log.info("request=%s caller=%s priority=%s candidates=%d code=%d elapsed_s=%.3f", request_id, caller,
                 reward_pb2.Priority.Name(priority), len(request.candidates), len(code_tasks),
                 time.monotonic() - started)

    async def _graded(self, tasks: dict[asyncio.Future, tuple[int, str, str]], reply_by: float | None,
                      started: float) -> AsyncIterator[ScoreResult]:
        """The tasks' results as they finish until `reply_by`; then INFRA_DEADLINE for each one still running (the
        caller cancels it as the batch ends): it truly did not finish in the time the caller gave."""
        loop = asyncio.get_running_loop()
        waiting = set(tasks)
        while waiting:
            timeout = None if reply_by is None else max(0.0, reply_by - loop.time())
            done, waiting = await asyncio.wait(waiting, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            if not done:
                break
            for task in done:
                yield task.result()
        for index, candidate_id, label in sorted(tasks[task] for task in waiting):
            elapsed = time.monotonic() - started
            self.metrics.observe_result(label, Verdict.INFRA_DEADLINE.name, total_s=elapsed)
            yield result_message(index, candidate_id, Verdict.INFRA_DEADLINE, elapsed_s=elapsed,
                                 detail="not graded before the caller's deadline")

    async def _grade_counterexample(self, index: int, candidate: reward_pb2.Candidate) -> reward_pb2.ScoreResult:
        """A right FALSE that must show its magma: checked in a thread (numpy; up to 16^6 assignments)."""
        started = time.monotonic()
        task = candidate.equation
        try:
            verdict, detail = await asyncio.to_thread(grade_counterexample, task.response, task.equation1,
                                                      task.equation2)
        except Exception as exc:  # a bug; one candidate's failure must never sink its batch
            log.exception("checking the counterexample of candidate %d (%s) failed: %r", index, candidate.id,
                          task.response[:2000])
            self.metrics.internal_error("equation", exc)
            verdict, detail = Verdict.INFRA_SANDBOX_ERROR, f"internal error: {type(exc).__name__}: {exc}"
        elapsed = time.monotonic() - started
        self.metrics.observe_batch("equation", {verdict.name: 1}, elapsed)
        return result_message(index, candidate.id, verdict, detail=detail, extracted="FALSE", elapsed_s=elapsed)

    async def _grade_code(self, index: int, candidate: reward_pb2.Candidate, checkers: Checkers, *, priority: int,
                          caller: str, deadline: float | None) -> reward_pb2.ScoreResult:
        started = time.monotonic()
        shared = False
        try:
            grade, shared = await self.cache.grade(task_key(candidate.code), lambda: self.grader.grade(
                code_job(candidate.code), priority=priority, caller=caller, deadline=deadline, checkers=checkers))
        except Exception as exc:  # a bug; one candidate's failure must never sink its batch
            log.exception("grading candidate %d (%s) failed: %s", index, candidate.id,
                          json_format.MessageToJson(candidate, indent=None)[:4000])
            self.metrics.internal_error("code", exc)
            grade = CodeGrade(Verdict.INFRA_SANDBOX_ERROR, f"internal error: {type(exc).__name__}: {exc}")
        elapsed = time.monotonic() - started
        self.metrics.cache_lookup(hit=shared)
        stages = {} if shared else grade.stages  # a shared grading's stages were observed once, by its owner
        self.metrics.observe_result(self._language_label(candidate.code.language), grade.verdict.name,
                                    total_s=elapsed, queue_s=stages.get("queue"),
                                    compile_s=stages.get("compile"), run_s=stages.get("run"))
        return result_message(index, candidate.id, grade.verdict, detail=grade.detail,
                              extracted=grade.extracted, sandbox=grade.sandbox, elapsed_s=elapsed, tests=grade.tests)
