"""One problem: what the model is asked, how its answer is graded, and the reward.v1 Candidate that grades it."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import NamedTuple

from reward_server.pb import reward_pb2

EXTRACTIONS = {"none": reward_pb2.EXTRACTION_NONE, "first_block": reward_pb2.FIRST_BLOCK,
               "last_block": reward_pb2.LAST_BLOCK}
COMPARATORS = {"exact": reward_pb2.EXACT, "lenient": reward_pb2.LENIENT, "lcb": reward_pb2.LCB}


class ProblemFormatError(ValueError):
    """A problem row is missing a field or has one of the wrong kind; the message names it."""


class Checker(NamedTuple):
    """A checker program (testlib's protocol) that judges an io problem's output instead of a comparator."""

    language: str
    source: str


@dataclasses.dataclass(frozen=True)
class Problem:
    id: str                          # stable; the same in every language the problem is posed in
    benchmark: str                   # groups eval summaries and held-out sets
    language: str                    # a server key or alias as the benchmark spells it; "" for equations
    messages: tuple[tuple[str, str], ...]   # (role, content): the chat the model is asked
    code_prompt: str = ""            # function style: the program's head, which the completion continues
    tests: str = ""                  # function style (MultiPL-E / HumanEval)
    stop_tokens: tuple[str, ...] = ()
    io_tests: tuple[tuple[str, str], ...] = ()   # stdin/stdout style: (stdin, expected stdout)
    comparator: str = "exact"        # a key of COMPARATORS
    extraction: str = "none"         # a key of EXTRACTIONS
    expected: bool | None = None     # equational: does equation 1 imply equation 2
    timeout_s: float = 0.0           # per test; 0: the language's default
    function_name: str = ""          # call-based io_tests (LiveCodeBench functional): the function they call
    checker: Checker | None = None   # io problems whose output a checker judges
    equation1: str = ""              # equational: the laws, `*` for the operation
    equation2: str = ""
    require_counterexample: bool = False   # equational: a right FALSE must show a magma (BAD_COUNTEREXAMPLE)

    @property
    def kind(self) -> str:
        """How it is asked and graded: "function" (continued as plain text, then tests), "io" or "equation"."""
        if self.expected is not None:
            return "equation"
        return "function" if self.tests else "io"

    @property
    def chat(self) -> list[dict[str, str]]:
        return [{"role": role, "content": content} for role, content in self.messages]

    def candidate(self, candidate_id: str, completion: str, *, run_all_tests: bool = False) -> reward_pb2.Candidate:
        """The one mapping to the wire: eval and the TRL rewards both grade a completion through it."""
        if self.expected is not None:
            return reward_pb2.Candidate(id=candidate_id, equation=reward_pb2.EquationTask(
                response=completion, expected=self.expected, equation1=self.equation1, equation2=self.equation2,
                require_counterexample=self.require_counterexample))
        checker = None if self.checker is None else reward_pb2.Checker(language=self.checker.language,
                                                                       source=self.checker.source)
        return reward_pb2.Candidate(id=candidate_id, code=reward_pb2.CodeTask(
            language=self.language, completion=completion, extraction=EXTRACTIONS[self.extraction],
            prompt=self.code_prompt, stop_tokens=self.stop_tokens, tests=self.tests,
            io_tests=[reward_pb2.IOTest(stdin=stdin, expected_stdout=out) for stdin, out in self.io_tests],
            comparator=COMPARATORS[self.comparator], timeout_s=self.timeout_s, run_all_tests=run_all_tests,
            function_name=self.function_name, checker=checker))


def unique(problems: Iterable[Problem], source: str) -> list[Problem]:
    """The problems, refusing a repeated id (results and completions are keyed by it)."""
    seen: dict[str, Problem] = {}
    for problem in problems:
        if problem.id in seen:
            raise ProblemFormatError(f"{source}: duplicate problem id {problem.id!r}")
        seen[problem.id] = problem
    return list(seen.values())
