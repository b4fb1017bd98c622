"""Checkers (testlib's protocol) for stdin/stdout tests whose right output is not unique (docs/grading.md).

For each test whose run ended well, the checker runs in a sandbox of its own as `checker input output answer` (the
test's stdin, the program's stdout and the expected output, as files in the checker's workdir): exit 0 accepts,
1 or 2 is a wrong answer (testlib's WA and PE).

Who is to blame when a checker fails is decided by its run on the test's reference answer (the expected output as
the output, same input), once per checker and test (References, shared by every request). A checker that accepts it
works: its crash, a limit or testlib's FAIL on the program's output is then that output's doing (a wrong answer;
else a naive checker's `int()` of garbage or a 5,000-digit number would let a wrong program hide as no fault of
its own). A checker that does not compile or parse, or rejects or fails on the reference answer itself, is broken:
INFRA_CHECKER_ERROR. VERDICTS is the one rule.

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
import collections
import contextlib
import dataclasses
import enum
import hashlib
import logging
from collections.abc import Iterator, Sequence
from pathlib import PurePosixPath

from reward_server.graders.runs import Unrunnable, describe_run, excerpt, runnable
from reward_server.verdicts import Verdict
from sandboxes.languages import NATIVE_CHECKER, Language, LanguageTable
from sandboxes.policy import CPU_LIMIT
from sandboxes.pool import SandboxPool
from sandboxes.results import Limits, RunResult, RunStatus

log = logging.getLogger(__name__)

ROUND_FILE_CHARS = 64 << 20     # a round's files at most (more rounds beyond): the workdir holds them all
REFERENCES_KEPT = 1 << 16       # reference findings kept across requests (a digest and a short outcome each)
THREADED_KEY_CHARS = 1 << 20    # a test larger than this is hashed off the event loop
WRONG_ANSWER_CODES = (1, 2)     # testlib's WA and PE
WRAPPED_FAILURE = 70            # how a wrapper ends a checker that does not parse or dies of an uncaught error
PARSE_ONLY = "--parse-only"     # a wrapper's only argument when it is only to parse the checker


class Finding(enum.Enum):
    """What one step of a checker established, whichever output it judged."""

    ACCEPTED = "accepts"
    REJECTED = "rejects"        # its own exit 1 or 2: testlib's WA or PE
    FAILED = "fails on"         # testlib's FAIL or any other status, a crash, its CPU-time, memory or output limit
    WAITED = "waited on"        # the wall-clock backstop with CPU time to spare: a busy machine, not what it read
    CUT = "was cut short on"    # the caller's deadline
    LOST = "lost its sandbox on"


# What a step's status establishes (a run's exit 1 or 2 and its wall-clock stop: finding()). A compile is read
# by this alone: its limit is on the wall clock, and its exit 1 is its failure.
STATUS_FINDINGS = {
    RunStatus.OK: Finding.ACCEPTED,
    RunStatus.EXIT_NONZERO: Finding.FAILED,
    RunStatus.TIMEOUT: Finding.FAILED,
    RunStatus.MEMORY_LIMIT: Finding.FAILED,
    RunStatus.OUTPUT_LIMIT: Finding.FAILED,
    RunStatus.DEADLINE: Finding.CUT,
    RunStatus.SANDBOX_ERROR: Finding.LOST,
}
# The one rule: a finding's verdict on the reference answer (or on the compile or parse before it), and on the
# program's output once the checker has accepted the reference answer. The program is blamed for exactly what the
# checker itself did; what the machine, the deadline or the sandbox did is no one's fault here.
VERDICTS = {
    Finding.ACCEPTED: (Verdict.PASS, Verdict.PASS),
    Finding.REJECTED: (Verdict.INFRA_CHECKER_ERROR, Verdict.WRONG_ANSWER),
    Finding.FAILED: (Verdict.INFRA_CHECKER_ERROR, Verdict.WRONG_ANSWER),
    Finding.WAITED: (Verdict.INFRA_OVERLOADED, Verdict.INFRA_OVERLOADED),
    Finding.CUT: (Verdict.INFRA_DEADLINE, Verdict.INFRA_DEADLINE),
    Finding.LOST: (Verdict.INFRA_SANDBOX_ERROR, Verdict.INFRA_SANDBOX_ERROR),
}


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


def finding(result: RunResult) -> Finding:
    """What a run of the checker (not its compile) established. A run's time limit is CPU time, which what it reads
    can exhaust and a busy machine cannot; stopped on the wall clock with CPU time to spare, it was kept waiting."""
    if result.status is RunStatus.EXIT_NONZERO and result.exit_code in WRONG_ANSWER_CODES:
        return Finding.REJECTED
    if result.status is RunStatus.TIMEOUT and result.detail != CPU_LIMIT:
        return Finding.WAITED
    return STATUS_FINDINGS[result.status]


def kept(found: Finding) -> bool:
    """Whether a finding on a reference answer holds for later checks: only what the checker itself did."""
    return not VERDICTS[found][1].is_infra


def on_reference(result: RunResult) -> CheckOutcome:
    """What the checker's run on a test's reference answer means for every output of that test: PASS (the checker
    works; the output's own run decides) or the outcome every check of the test gets."""
    found = finding(result)
    verdict = VERDICTS[found][0]
    if verdict is Verdict.PASS:
        return CheckOutcome(Verdict.PASS)
    return CheckOutcome(verdict, f"the checker {found.value} the reference answer: {describe_run(result)}")


def on_output(result: RunResult) -> CheckOutcome:
    """What the checker's run on the program's output says, the checker having accepted the reference answer."""
    found = finding(result)
    verdict = VERDICTS[found][1]
    if found is Finding.ACCEPTED:
        return CheckOutcome(verdict)
    if found is Finding.REJECTED:
        return CheckOutcome(verdict, f"checker: {excerpt(result.stderr, 300)}".rstrip())
    though = ", though it accepts the reference answer" if found is Finding.FAILED else ""
    return CheckOutcome(verdict, f"the checker {found.value} this output{though}: {describe_run(result)}")


def _digest(*parts: str | bytes) -> bytes:
    """A digest of the parts, each delimited by its length."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "little") + data)
    return digest.digest()


class References:
    """What each checker said of each test's reference answer, across requests: a GRPO group's candidates, and the
    next groups of the same problem, share one run of it. Keyed by a digest of the checker (language and source)
    and the test (input and answer); the latest REFERENCES_KEPT kept. A finding that is not the checker's own
    (the machine's, the deadline's, the sandbox's) is not kept."""

    def __init__(self) -> None:
        self._outcomes: collections.OrderedDict[bytes, CheckOutcome] = collections.OrderedDict()

    def get(self, key: bytes) -> CheckOutcome | None:
        found = self._outcomes.get(key)
        if found is not None:
            self._outcomes.move_to_end(key)
        return found

    def put(self, key: bytes, outcome: CheckOutcome) -> None:
        self._outcomes[key] = outcome
        self._outcomes.move_to_end(key)
        while len(self._outcomes) > REFERENCES_KEPT:
            self._outcomes.popitem(last=False)


class Checkers:
    """The checkers of one request: a session per distinct checker, run under the request's priority and deadline;
    `references` outlives it."""

    def __init__(self, table: LanguageTable, pool: SandboxPool, references: References, *, priority: int,
                 caller: str, deadline: float | None) -> None:
        self.table = table
        self.pool = pool
        self.references = references
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
        asks so), each test's reference answer first where References does not know it; each request's future gets
        its outcomes."""
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
                verdict = VERDICTS[STATUS_FINDINGS[compiled.status]][0]
                _settle(requests, [CheckOutcome(verdict, "the checker does not compile: " + describe_run(compiled))])
                return
            if wrapper:
                parsed = await workspace.run(b"", limits, self.deadline, [PARSE_ONLY])
                if parsed.status is not RunStatus.OK:
                    verdict = VERDICTS[finding(parsed)][0]
                    _settle(requests, [CheckOutcome(verdict, "the checker does not parse: " + describe_run(parsed))])
                    return
            checker = _digest(language.key, spec.source)
            references: dict[tuple[str, str], CheckOutcome] = {}    # this round's, by (input, answer) file

            async def reference(input_file: str, answer_file: str, check: Check) -> CheckOutcome:
                if (input_file, answer_file) in references:
                    return references[input_file, answer_file]
                if len(check.input) + len(check.answer) > THREADED_KEY_CHARS:
                    key = await asyncio.to_thread(_digest, checker, check.input, check.answer)
                else:
                    key = _digest(checker, check.input, check.answer)
                known = self.references.get(key)
                if known is None:
                    result = await workspace.run(b"", limits, self.deadline, [input_file, answer_file, answer_file])
                    known = on_reference(result)
                    log.info("checker (%s) ran on a reference answer: %s", language.key,
                             "accepted" if known.verdict is Verdict.PASS else known.verdict.name)
                    if kept(finding(result)):
                        self.references.put(key, known)
                references[input_file, answer_file] = known
                return known

            for request, runs in zip(requests, argvs, strict=True):
                outcomes: list[CheckOutcome] = []
                for (input_file, output_file, answer_file), check in zip(runs, request.checks, strict=True):
                    if request.future.done():   # its candidate has gone
                        break
                    known = await reference(input_file, answer_file, check)
                    # an output that is the reference answer was judged with it
                    if known.verdict is Verdict.PASS and check.output != check.answer:
                        args = [input_file, output_file, answer_file]
                        known = on_output(await workspace.run(b"", limits, self.deadline, args))
                    outcomes.append(known)
                    if known.verdict is not Verdict.PASS and request.stop_at_first_failure:
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
