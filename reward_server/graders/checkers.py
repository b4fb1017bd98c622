"""Checkers (testlib's protocol) for stdin/stdout tests whose right output is not unique (docs/grading.md).

For each test whose run ended well, the checker runs in a sandbox of its own as `checker input output answer` (the
test's stdin, the program's stdout and the expected output, as files in the checker's workdir): exit 0 accepts,
1 or 2 is a wrong answer (testlib's WA and PE); 3 (testlib's FAIL), any other status, a signal or a limit is the
checker's failure, never the model's: INFRA_CHECKER_ERROR, as is a checker that does not compile.

A runtime that ends a source that does not parse, or an uncaught error, with status 1 (Python, JavaScript) would turn
a broken checker into the model's wrong answer, so such a checker runs under its language's trusted wrapper (the
table's `checker`): its source is parsed once before the checks, like a compile, and an error that escapes it ends
the run with WRAPPED_FAILURE. A language whose runtime does so and that has no wrapper runs no checker.

A checker serves every candidate of a request that names it (a GRPO group's generations): it is compiled once, in
one workspace, when all of them have their outputs. A candidate holds no sandbox slot while it waits, so waiting
cannot starve the pool of the slots the others need; the checks then run one after another in that workspace.
Only a candidate that joins once its checker's round has begun (its own language was still being probed), or
checks beyond ROUND_FILE_CHARS of files, make another round (and compile).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Iterator, Sequence
from pathlib import PurePosixPath

from reward_server.graders.runs import Unrunnable, describe_run, excerpt, runnable
from reward_server.verdicts import Verdict
from sandboxes.languages import NATIVE_CHECKER, Language, LanguageTable
from sandboxes.pool import SandboxPool
from sandboxes.results import Limits, RunResult, RunStatus

log = logging.getLogger(__name__)

ROUND_FILE_CHARS = 64 << 20     # a round's files at most (more rounds beyond): the workdir holds them all
WRONG_ANSWER_CODES = (1, 2)     # testlib's WA and PE
# how a checker's own run ending badly reads (anything else: INFRA_CHECKER_ERROR)
SANDBOX_FAILURES = {RunStatus.DEADLINE: Verdict.INFRA_DEADLINE, RunStatus.SANDBOX_ERROR: Verdict.INFRA_SANDBOX_ERROR}
WRAPPED_FAILURE = 70            # how a wrapper ends a checker that does not parse or dies of an uncaught error
PARSE_ONLY = "--parse-only"     # a wrapper's only argument when it is only to parse the checker


def wrapped(language: Language, checker: str) -> tuple[str, dict[str, str]]:
    """(source, files) of a checker under its language's wrapper: the wrapper, and the checker's own source beside it
    (`checker` with the language's source extension)."""
    checker_file = "checker" + PurePosixPath(language.source_file).suffix
    source = (language.checker.replace("{checker_file}", checker_file).replace("{parse_only}", PARSE_ONLY)
              .replace("{failed}", str(WRAPPED_FAILURE)))
    return source, {checker_file: checker}


@dataclasses.dataclass(frozen=True)
class CheckerSpec:
    language: str
    source: str


@dataclasses.dataclass(frozen=True)
class Check:
    input: str      # the stdin the program read
    output: str     # what it printed
    answer: str     # the expected output


@dataclasses.dataclass(frozen=True)
class CheckOutcome:
    verdict: Verdict
    detail: str = ""


@dataclasses.dataclass(eq=False)
class _Request:
    checks: Sequence[Check]
    stop_at_first_failure: bool
    future: asyncio.Future[list[CheckOutcome]]

    @property
    def chars(self) -> int:
        return sum(len(check.input) + len(check.output) + len(check.answer) for check in self.checks)


def outcome(result: RunResult) -> CheckOutcome:
    """What one run of the checker says about the program's output."""
    if result.status is RunStatus.OK:
        return CheckOutcome(Verdict.PASS)
    if result.status is RunStatus.EXIT_NONZERO and result.exit_code in WRONG_ANSWER_CODES:
        return CheckOutcome(Verdict.WRONG_ANSWER, f"checker: {excerpt(result.stderr, 300)}".rstrip())
    verdict = SANDBOX_FAILURES.get(result.status, Verdict.INFRA_CHECKER_ERROR)
    return CheckOutcome(verdict, f"the checker failed: {describe_run(result)}")


class Checkers:
    """The checkers of one request: a session per distinct checker, run under the request's priority and deadline."""

    def __init__(self, table: LanguageTable, pool: SandboxPool, *, priority: int, caller: str,
                 deadline: float | None) -> None:
        self.table = table
        self.pool = pool
        self.priority = priority
        self.caller = caller
        self.deadline = deadline
        self._sessions: dict[CheckerSpec, CheckerSession] = {}

    def session(self, spec: CheckerSpec) -> CheckerSession:
        if spec not in self._sessions:
            self._sessions[spec] = CheckerSession(self, spec)
        return self._sessions[spec]

    async def run_round(self, spec: CheckerSpec, requests: list[_Request]) -> None:
        """Compile the checker once and run every request's checks in order (each up to its first failure if it
        asks so); each request's future gets its outcomes."""
        found = await runnable(self.table, self.pool, spec.language, "checker ")
        if isinstance(found, Unrunnable):
            _settle(requests, [CheckOutcome(found.verdict, found.detail)])
            return
        language, _ = found
        if not language.checker:
            _settle(requests, [CheckOutcome(Verdict.INFRA_UNSUPPORTED_TEST, f"no checker runs in {language.key} here: "
                                            "its runtime ends an uncaught error as testlib's wrong answer")])
            return
        wrapper = language.checker != NATIVE_CHECKER
        files: dict[str, str] = {}      # what the runs read: one file per distinct text of each kind (and the wrapped
        #                                 checker's own source)
        names: dict[tuple[str, str], str] = {}

        def named(kind: str, text: str) -> str:
            if (kind, text) not in names:
                names[kind, text] = f"{kind}{len(names)}"
                files[names[kind, text]] = text
            return names[kind, text]

        argvs = [[(named("input", c.input), named("output", c.output), named("answer", c.answer))
                  for c in request.checks] for request in requests]
        limits = Limits(timeout_s=language.timeout_s, memory_mb=language.memory_mb)
        source = spec.source
        if wrapper:
            source, checker_file = wrapped(language, spec.source)
            files |= checker_file
        async with self.pool.workspace(language, source, data_files=files, priority=self.priority,
                                       caller=self.caller, deadline=self.deadline) as workspace:
            compiled = await workspace.compile(self.deadline)
            log.info("checker (%s) built once for %d candidate(s), %d check(s)", language.key, len(requests),
                     sum(len(runs) for runs in argvs))
            if compiled is not None and compiled.status is not RunStatus.OK:
                verdict = SANDBOX_FAILURES.get(compiled.status, Verdict.INFRA_CHECKER_ERROR)
                _settle(requests, [CheckOutcome(verdict, "the checker does not compile: " + describe_run(compiled))])
                return
            if wrapper:
                parsed = await workspace.run(b"", limits, self.deadline, [PARSE_ONLY])
                if parsed.status is not RunStatus.OK:
                    verdict = SANDBOX_FAILURES.get(parsed.status, Verdict.INFRA_CHECKER_ERROR)
                    _settle(requests, [CheckOutcome(verdict, "the checker does not parse: " + describe_run(parsed))])
                    return
            for request, runs in zip(requests, argvs, strict=True):
                outcomes: list[CheckOutcome] = []
                for args in runs:
                    if request.future.done():   # its candidate has gone
                        break
                    outcomes.append(outcome(await workspace.run(b"", limits, self.deadline, args)))
                    if outcomes[-1].verdict is not Verdict.PASS and request.stop_at_first_failure:
                        break
                if not request.future.done():
                    request.future.set_result(outcomes)


def _settle(requests: list[_Request], outcomes: list[CheckOutcome]) -> None:
    for request in requests:
        if not request.future.done():
            request.future.set_result(outcomes)


class CheckerSession:
    """One checker's candidates within a request: a round starts once every member has submitted its checks."""

    def __init__(self, checkers: Checkers, spec: CheckerSpec) -> None:
        self._checkers = checkers
        self._spec = spec
        self._members = 0
        self._submitted = 0
        self._pending: list[_Request] = []
        self._round: asyncio.Task[None] | None = None

    @contextlib.contextmanager
    def member(self) -> Iterator[Member]:
        """Membership from the start of a candidate's grading, so that the checker waits for its outputs."""
        member = Member(self)
        self._members += 1
        try:
            yield member
        finally:
            self._members -= 1
            self._submitted -= member.submitted
            self._start_if_ready()

    async def _check(self, member: Member, checks: Sequence[Check], stop_at_first_failure: bool,
                     ) -> list[CheckOutcome]:
        request = _Request(checks, stop_at_first_failure, asyncio.get_running_loop().create_future())
        member.submitted = True
        self._submitted += 1
        self._pending.append(request)
        try:
            self._start_if_ready()
            return await request.future
        finally:
            if request in self._pending:
                self._pending.remove(request)
            request.future.cancel()     # no-op once it has a result; a round skips the checks nobody awaits

    def _start_if_ready(self) -> None:
        if self._round is not None or not self._pending or self._submitted < self._members:
            return
        taken, chars = [], 0
        while self._pending and (not taken or chars + self._pending[0].chars <= ROUND_FILE_CHARS):
            chars += self._pending[0].chars
            taken.append(self._pending.pop(0))
        self._round = asyncio.ensure_future(self._run(taken))

    async def _run(self, requests: list[_Request]) -> None:
        try:
            await self._checkers.run_round(self._spec, requests)
        except Exception as exc:  # no slot, the deadline, the sandbox: every candidate still waiting learns it
            for request in requests:
                if not request.future.done():
                    request.future.set_exception(exc)
        finally:
            self._round = None
            self._start_if_ready()


class Member:
    """One candidate's place in a checker session; it checks once."""

    def __init__(self, session: CheckerSession) -> None:
        self.session = session
        self.submitted = False

    async def check(self, checks: Sequence[Check], stop_at_first_failure: bool) -> list[CheckOutcome]:
        return await self.session._check(self, checks, stop_at_first_failure)
