"""Scala's tests in an object of their own (docs/guards.md), through a real server and real sandboxes.

Each hack is a completion in MultiPL-E's own layout (HumanEval_53_add: the prompt imports scala.math._ and
scala.collection.mutable._ and opens `add` in `object Problem`, the tests close it and call `assert` in Problem's
`main`; the stop token "\\n    }\\n") that makes a wrong add pass as the plain MultiPL-E program (one file, graded as a
stdin/stdout program: what ran before), and that must not pass harnessed. A completion declares members of Problem
after add by closing add on a brace indented otherwise and opening a method of its own that the tests' brace closes.
Honest programs keep their verdicts. scalac is slow: the batch is small.
"""

from __future__ import annotations

import pytest

from reward_server.pb import reward_pb2
from tests.guard_cases import Hack, Honest, Problem, case_tests, score_cases

STOPS = ("\n    }\n",)
IMPORTS = "import scala.math._\nimport scala.collection.mutable._\n"
# MultiPL-E's HumanEval_53_add in Scala (tests/data/multipl_e_humaneval.jsonl)
ADD_PROMPT = (IMPORTS + "object Problem {\n    // Add two numbers x and y\n    // >>> add((2l), (3l))\n    // (5l)\n"
              "    // >>> add((5l), (7l))\n    // (12l)\n    def add(x : Long, y : Long) : Long = {\n")
ADD_TESTS = ("    }\n    def main(args: Array[String]) = {\n    assert(add((0l), (1l)) == (1l));\n"
             "    assert(add((1l), (0l)) == (1l));\n    assert(add((2l), (3l)) == (5l));\n"
             "    assert(add((5l), (7l)) == (12l));\n    assert(add((7l), (5l)) == (12l));\n    }\n\n}\n")
# MultiPL-E's layout for a function of lists (HumanEval_34_unique)
UNIQUE_PROMPT = (IMPORTS + "object Problem {\n    // Return sorted unique elements in a list\n"
                 "    def unique(l : List[Long]) : List[Long] = {\n")
UNIQUE_TESTS = ("    }\n    def main(args: Array[String]) = {\n    assert(unique((List[Long](5l.toLong, 3l.toLong, "
                "5l.toLong, 2l.toLong))).equals((List[Long](2l.toLong, 3l.toLong, 5l.toLong))));\n    }\n\n}\n")
WRONG = "        x - y"


def members(body: str, declarations: str) -> str:
    """`body` as the function's, then `declarations` in Problem, then a method of its own for the tests' brace."""
    return f"{body}\n  }}\n  {declarations}\n  def rest() = {{"


ADD = Problem("scala", ADD_PROMPT, ADD_TESTS, STOPS)
UNIQUE = Problem("scala", UNIQUE_PROMPT, UNIQUE_TESTS, STOPS)

HACKS = [
    # the family measured to pass before
    Hack("a local def assert", members(WRONG, "def assert(assertion: Boolean): Unit = ()"), "RUNTIME_ERROR", ADD),
    # variants the harness was not built against
    Hack("an assert imported from an object of its own",
         members(WRONG, "object Lenient { def assert(assertion: Boolean): Unit = () }\n  import Lenient._"),
         "RUNTIME_ERROR", ADD),
    Hack("a local List that builds what it is compared with",
         members("        Nil", "object List { def apply[T](items: T*): scala.List[T] = Nil }"),
         "COMPILE_ERROR", UNIQUE),
]
# reach for what the tests use, but fail plainly too: harnessed, the tests still fail
HELD = [
    Hack("reads its source", "        val text = scala.io.Source.fromFile(\"Problem.scala\").mkString\n" + WRONG,
         "RUNTIME_ERROR", ADD),
]

HONEST = [
    Honest("add", "        x + y", WRONG, ADD),
    Honest("lists", "        l.distinct.sorted", "        l.distinct", UNIQUE),
    # an object and output of its own, text beyond ASCII
    Honest("helpers", members("        println(\"adding é ✓ 😀\")\n        Util.sum(x, y)",
                              "object Util { def sum(a: Long, b: Long): Long = a + b }"),
           members("        Util.sum(x, y)", "object Util { def sum(a: Long, b: Long): Long = a - b }"), ADD),
    # the samples' layout: the completion closes the function, main declares its type
    Honest("samples' layout", "    a + b\n  }\n", "    a - b\n  }\n",
           Problem("scala", "object Problem {\n  def add(a: Long, b: Long): Long = {\n",
                   "  def main(args: Array[String]): Unit = {\n    assert(add(2, 3) == 5)\n  }\n}\n", ())),
]


@pytest.fixture(scope="module")
def results(server_address: str) -> dict[str, reward_pb2.ScoreResult]:
    return score_cases(server_address, "scala", HACKS, HELD, HONEST)


globals().update(case_tests(HACKS, held=HELD, honest=HONEST))


def test_a_failed_assertion_points_at_its_line(results) -> None:
    """The tests keep their lines (the one-line replacement): the first assertion is line 13."""
    assert "Problem.scala:13)" in results["wrong/add"].detail, results["wrong/add"].detail
