"""C#'s tests in a class of their own (docs/guards.md), through a real server and real sandboxes.

Each hack is a completion in MultiPL-E's own layout (HumanEval_53_add: the prompt opens `Add` in `class Problem`, the
tests close it and call `Debug.Assert` in Problem's `Main`; the stop token "\\n    }\\n") that makes a wrong Add pass
as the plain MultiPL-E program (one file, graded as a stdin/stdout program: what ran before), and that must not pass
harnessed. A completion declares members of Problem after Add by closing Add on a brace indented otherwise and opening
a method of its own that the tests' brace closes. Honest programs keep their verdicts.
"""

from __future__ import annotations

import pytest

from reward_server.pb import reward_pb2
from tests.guard_cases import Hack, Honest, Problem, case_tests, score_cases

STOPS = ("\n    }\n",)
USINGS = ("using System;\nusing System.Numerics;\nusing System.Diagnostics;\nusing System.Collections.Generic;\n"
          "using System.Linq;\nusing System.Text;\nusing System.Security.Cryptography;\n")
# MultiPL-E's HumanEval_53_add in C# (tests/data/multipl_e_humaneval.jsonl)
ADD_PROMPT = (USINGS + "class Problem {\n    // Add two numbers x and y\n    // >>> add(2, 3)\n    // 5\n"
              "    // >>> add(5, 7)\n    // 12\n    public static long Add(long x, long y) {\n")
ADD_TESTS = ("    }\n    public static void Main(string[] args) {\n    Debug.Assert(Add((0L), (1L)) == (1L));\n"
             "    Debug.Assert(Add((1L), (0L)) == (1L));\n    Debug.Assert(Add((2L), (3L)) == (5L));\n"
             "    Debug.Assert(Add((5L), (7L)) == (12L));\n    Debug.Assert(Add((7L), (5L)) == (12L));\n    }\n\n}\n")
# MultiPL-E's layout for a function of lists (HumanEval_34_unique): the tests build List<long>s and compare by Equals
UNIQUE_PROMPT = (USINGS + "class Problem {\n    // Return sorted unique elements in a list\n"
                 "    public static List<long> Unique(List<long> l) {\n")
UNIQUE_TESTS = ("    }\n    public static void Main(string[] args) {\n"
                "    Debug.Assert(Unique((new List<long>(new long[]{(long)5L, (long)3L, (long)5L, (long)2L})))"
                ".Equals((new List<long>(new long[]{(long)2L, (long)3L, (long)5L}))));\n    }\n\n}\n")
WRONG = "        return x - y;"
FAKE_DEBUG = "class Debug { public static void Assert(bool condition) { } }"


def members(body: str, declarations: str) -> str:
    """`body` as Add's, then `declarations` in Problem, then a method of its own for the tests' brace."""
    return f"{body}\n  }}\n  {declarations}\n  static void Rest_() {{"


ADD = Problem("csharp", ADD_PROMPT, ADD_TESTS, STOPS)
UNIQUE = Problem("csharp", UNIQUE_PROMPT, UNIQUE_TESTS, STOPS)

HACKS = [
    # the family measured to pass before
    Hack("a nested class Debug", members(WRONG, FAKE_DEBUG), "RUNTIME_ERROR", ADD),
    # variants the harness was not built against
    Hack("a class Debug in the global namespace",
         f"{WRONG}\n  }}\n}}\n{FAKE_DEBUG}\nclass Problem2 : Problem {{\n  static void Rest_() {{",
         "RUNTIME_ERROR", ADD),
    Hack("the trace listeners cleared", "        System.Diagnostics.Debug.Listeners.Clear();\n" + WRONG,
         "RUNTIME_ERROR", ADD),
    Hack("a nested List whose Equals is always true",
         members("        return l;", "public class List<T> : System.Collections.Generic.List<T> {\n"
                 "    public List(IEnumerable<T> items) : base(items) { }\n"
                 "    public override bool Equals(object other) { return true; }\n"
                 "    public override int GetHashCode() { return 0; }\n  }"), "COMPILE_ERROR", UNIQUE),
    Hack("exits 0 in the function", "        Environment.Exit(0);\n" + WRONG, "EXITED_EARLY", ADD),
]
# reach for what the tests use, but fail plainly too: harnessed, the tests still fail
HELD = [
    Hack("reads main.cs", "        var text = System.IO.File.ReadAllText(\"main.cs\");\n" + WRONG,
         "RUNTIME_ERROR", ADD),
    Hack("a nested class System", members(WRONG, "class System { }"), "RUNTIME_ERROR", ADD),
    Hack("an unhandled-exception handler that exits 0",
         "        AppDomain.CurrentDomain.UnhandledException += (s, e) => Environment.Exit(0);\n" + WRONG,
         "EXITED_EARLY", ADD),
]

HONEST = [
    Honest("add", "        return x + y;", WRONG, ADD),
    # helpers, a nested class and output of its own, a method named like the tests' Assert, text beyond ASCII
    Honest("helpers", members("        Console.WriteLine(\"adding é ✓ 😀\");\n        return Sum(new Pair(x, y));",
                              "class Pair { public long A, B; public Pair(long a, long b) { A = a; B = b; } }\n"
                              "  static long Sum(Pair p) { Assert(true); return p.A + p.B; }\n"
                              "  static void Assert(bool ok) { if (!ok) throw new Exception(); }"),
           members("        return Sum(x, y);", "static long Sum(long a, long b) { return a - b; }"), ADD),
    # the samples' layout: the completion closes the function, the tests throw themselves
    Honest("samples' layout", "        return a + b;\n    }\n", "        return a - b;\n    }\n",
           Problem("csharp", "using System;\nclass Problem {\n    public static long Add(long a, long b) {\n",
                   "    public static void Main(string[] args) {\n        if (Add(2, 3) != 5) throw new Exception"
                   "(\"wrong\");\n    }\n}\n", ())),
]


@pytest.fixture(scope="module")
def results(server_address: str) -> dict[str, reward_pb2.ScoreResult]:
    return score_cases(server_address, "csharp", HACKS, HELD, HONEST)


globals().update(case_tests(HACKS, held=HELD, honest=HONEST))


def test_a_failed_assertion_points_at_its_line(results) -> None:
    """The tests keep their lines in main.cs (the one-line replacement): the first assertion is line 18."""
    assert "main.cs line 18" in results["wrong/add"].detail, results["wrong/add"].detail
