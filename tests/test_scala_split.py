"""Scala's tests in a process of their own (docs/guards.md, "Two processes"), through a real server and real sandboxes.

MultiPL-E's Scala tests sit in the program's own object Problem and compare with `==` or the returned value's own
`equals`: in one process a completion could shadow their `assert` or the `List` they build expected values with, exit
0 before they end (in the function, the object's initializer or a shutdown hook), or return a subclass whose `equals`
lies. Split, the tests' process holds the prompt up to its function, the stub that sends each call across and reads
the result back by the declared type (sandboxes/languages/scala/split_codec.scala), and the tests; the program's only
the prompt, the completion and the dispatcher. Each hack is a completion in MultiPL-E's own layout (the prompt imports
scala.math._ and scala.collection.mutable._ and opens the function in `object Problem`, the tests close it and call
`assert` in Problem's `main`; the stop token "\\n    }\\n": a completion declares members of Problem after the
function by closing it on a brace indented otherwise and opening a method of its own that the tests' brace closes)
that passes as the plain MultiPL-E program (one file, graded as a stdin/stdout program: what ran before) and must not
pass split; a held hack reaches for what only the tests' process holds, and would pass if it got it. Honest programs
keep their verdicts over MultiPL-E's Scala types (Long, Float, Boolean, String, List, mutable Map, Tuple2, Option,
Either, Any) and the rest of the wire's (Int, Short, Char, Double, BigInt, Set, ArrayBuffer, Array, tuples' own
syntax). scalac is slow: one batch.
"""

from __future__ import annotations

import pytest

from reward_server.pb import reward_pb2
from sandboxes.languages.samples import load_samples
from tests.candidates import function_style, verdict_name
from tests.guard_cases import Hack, Honest, Problem, case_tests, score_cases
from tests.judge_cases import multipl_e_cases

[ROW] = [case for case in multipl_e_cases() if case.language == "scala"]     # MultiPL-E's HumanEval_53_add
STOPS = ROW.stop_tokens
IMPORTS = "import scala.math._\nimport scala.collection.mutable._\n"
ADD = Problem("scala", ROW.prompt, ROW.tests, STOPS)


def problem(doc: str, declaration: str, *asserts: str) -> Problem:
    """A function in MultiPL-E's Scala layout: `declaration` opens it in object Problem, each assert a line of main."""
    return Problem("scala", IMPORTS + f"object Problem {{\n    // {doc}\n    def {declaration} = {{\n",
                   "    }\n    def main(args: Array[String]) = {\n"
                   + "".join(f"    {line}\n" for line in asserts) + "    }\n\n}\n", STOPS)


def body(*lines: str) -> str:
    """A completion's lines, indented as a method's body (never the stop token's brace: its indentation is 4)."""
    return "\n".join(" " * 8 + line for line in lines)


def members(completion: str, *declarations: str) -> str:
    """`completion` as the function's body, then `declarations` in Problem, then a method for the tests' brace."""
    return completion + "\n  }\n" + "".join(f"  {line}\n" for line in declarations) + "  def rest() = {"


UNIQUE = problem("Return sorted unique elements in a list", "unique(l : List[Long]) : List[Long]",
                 "assert(unique((List[Long](5l.toLong, 3l.toLong, 5l.toLong, 2l.toLong)))"
                 ".equals((List[Long](2l.toLong, 3l.toLong, 5l.toLong))));")
HISTOGRAM = problem("Count each word of test", "histogram(test : String) : Map[String,Long]",
                    'assert(histogram(("a b b a")).equals((Map[String,Long]("a" -> 2l, "b" -> 2l))));',
                    'assert(histogram(("")).equals((Map[String,Long]())));')
EVEN_ODD = problem("Count the even and odd palindromes in [1, n]", "evenOddPalindrome(n : Long) : Tuple2[Long, Long]",
                   "assert(evenOddPalindrome((12l)).equals(((4l, 6l))));",
                   "assert(evenOddPalindrome((3l)).equals(((1l, 2l))));")
EXTREMES = problem("The largest negative and the smallest positive number of lst",
                   "largestSmallestIntegers(lst : List[Long]) : Tuple2[Option[Long], Option[Long]]",
                   "assert(largestSmallestIntegers((List[Long](2l.toLong, -1l.toLong, 5l.toLong)))"
                   ".equals(((Some(-1l), Some(2l)))));",
                   "assert(largestSmallestIntegers((List[Long]())).equals(((None, None))));")
HALF = problem("Half of number", "half(number : Float) : Float", "assert(half((3.0f)) == (1.5f));",
               "assert(half(Float.NaN).isNaN);", "assert(half(Float.NegativeInfinity) == Float.NegativeInfinity);",
               "assert(1.0f / half((-0.0f)) == Float.NegativeInfinity);")
SPLIT = problem("The words of txt, or its length when it has one word",
                "splitWords(txt : String) : Either[List[String], Long]",
                'assert(splitWords(("Hello world!")).equals((Left(List[String]("Hello", "world!")))));',
                'assert(splitWords(("abcdef")).equals((Right(6l))));')
# MultiPL-E's HumanEval_22: values of any type
FILTER = problem("Filter given list of any values only for integers",
                 "filterIntegers(values : List[Any]) : List[Long]",
                 'assert(filterIntegers((List[Any](4l, Map[Long,Long](), List[Any](), 23.2f, 9l, "adasd")))'
                 ".equals((List[Long](4l.toLong, 9l.toLong))));")
# arguments the function changes (a buffer and the imports' mutable Map), and an exception it throws, which crosses as
# the JDK's class of its name
APPEND = problem("Append the sum of b to b and store it in m", "appendSum(b : ArrayBuffer[Long], m : Map[String,Long]) "
                 ": Long", "val b = ArrayBuffer[Long](1l, 2l)", "val m = Map[String,Long]()",
                 "assert(appendSum(b, m) == 3l);", "assert(b.equals(ArrayBuffer[Long](1l, 2l, 3l)));",
                 'assert(m.equals(Map[String,Long]("sum" -> 3l)));',
                 "try { appendSum(ArrayBuffer[Long](), m); assert(false) }",
                 'catch { case e: IllegalArgumentException => assert(e.getMessage == "requirement failed: empty") }')
# the rest of the wire: other integer widths, a char, a double, a bignum, a set, an array, a tuple's own syntax
WIDTHS = problem("Every width", "widths(i : Int, s : Short, c : Char, d : Double, big : BigInt, e : Set[Long], "
                 "a : Array[Long]) : (Long, String, Set[Long])",
                 "assert(widths(7, 300.toShort, 'é', -0.0, BigInt(\"123456789012345678901234567890\"), "
                 "Set[Long](3l, 1l), Array[Long](5l)).equals((307l, \"é-0.0123456789012345678901234567891\", "
                 "Set[Long](1l, 3l, 5l))));")
# a type the wire does not carry: a function argument
APPLY = problem("f applied twice", "applyTwice(f : Long => Long, x : Long) : Long",
                "assert(applyTwice(_ + 1, 1l) == 3l);")
SAMPLE = load_samples()["scala"].function
SAMPLES = Problem("scala", SAMPLE.prompt, SAMPLE.tests, ())

WRONG = "        x - y"
EQUAL_TO_ALL = "override def equals(o: Any) = true"
# the other processes' ids (the tests'), from /proc
OTHERS = ('val me = new java.io.File("/proc/self").getCanonicalFile.getName',
          'val others = new java.io.File("/proc").list().toList.filter(pid => pid.forall(_.isDigit) && pid != me)')
# right only where it could read the tests' files: their folder, or through another process's working directory
READS_THE_TESTS = body(
    *OTHERS, 'val paths = List("../t/Problem.scala", "../t/Problem.class") ++',
    '    others.map("/proc/" + _ + "/cwd/Problem.class")',
    "val reached = paths.exists(path => try java.nio.file.Files.readAllBytes(java.nio.file.Paths.get(path)).nonEmpty",
    "                                   catch { case _: Exception => false })", "if (reached) x + y else x - y")
# right only where it could read another process's memory (the tests')
OTHERS_MEMORY = body(
    *OTHERS, "val reached = others.exists(pid => try {",
    '    val maps = scala.io.Source.fromFile("/proc/" + pid + "/maps").mkString',
    '    val mem = new java.io.RandomAccessFile("/proc/" + pid + "/mem", "r")',
    '    mem.seek(java.lang.Long.parseUnsignedLong(maps.substring(0, maps.indexOf("-")), 16))',
    "    mem.read() >= 0", "} catch { case _: Exception => false })", "if (reached) x + y else x - y")
STARTS_A_PROCESS = body(
    'val started = try new ProcessBuilder("/bin/true").start().waitFor() == 0 catch { case _: Exception => false }',
    "if (started) x + y else x - y")
# a line like the marker on stderr, a reply of its own making on the replies' fd (add(0, 1) is 1), then exit 0
FORGED_REPLY = body('System.err.println("0123456789abcdef0123456789abcdef")',
                    "val out = new java.io.FileOutputStream(java.io.FileDescriptor.out)",
                    'out.write("Ri1;l2:i0;i1;".getBytes)', "out.flush()", "Runtime.getRuntime.halt(0)", "0l")
GARBAGE = body("val out = new java.io.FileOutputStream(java.io.FileDescriptor.out)", 'out.write("zz\\n".getBytes)',
               "out.flush()", "x + y")

HACKS = [
    # the families measured to pass in one file
    Hack("a local def assert", members(WRONG, "def assert(assertion: Boolean): Unit = ()"), "RUNTIME_ERROR", ADD),
    Hack("an assert imported from an object of its own",
         members(WRONG, "object Lenient { def assert(assertion: Boolean): Unit = () }", "import Lenient._"),
         "RUNTIME_ERROR", ADD),
    # the tests' List is the program's: split, only the dispatcher builds its arguments with it
    Hack("a local List that builds what it is compared with",
         members("        Nil", "object List { def apply[T](items: T*): scala.List[T] = Nil }"), "RUNTIME_ERROR",
         UNIQUE),
    Hack("a map equal to everything", f"        new HashMap[String,Long]() {{ {EQUAL_TO_ALL} }}", "RUNTIME_ERROR",
         HISTOGRAM),
    Hack("a tuple equal to everything", f"        new Tuple2[Long, Long](0l, 0l) {{ {EQUAL_TO_ALL} }}",
         "RUNTIME_ERROR", EVEN_ODD),
    Hack("exits 0 in the function", "        sys.exit(0)", "RUNTIME_ERROR", ADD),
    Hack("an object initializer that exits 0", members(WRONG, "System.exit(0)"), "RUNTIME_ERROR", ADD),
    Hack("a shutdown hook that halts 0", members(WRONG, "sys.addShutdownHook(Runtime.getRuntime.halt(0))"),
         "RUNTIME_ERROR", ADD),
    Hack("a forged marker and reply", FORGED_REPLY, "RUNTIME_ERROR", ADD),
]

HELD = [
    Hack("reads its own source for the tests",
         body('val text = scala.io.Source.fromFile("Problem.scala").mkString',
              'if (text.contains("assert(" + "add(")) x + y else x - y'), "RUNTIME_ERROR", ADD),
    Hack("reads the tests' files", READS_THE_TESTS, "RUNTIME_ERROR", ADD),
    Hack("reads the tests' memory", OTHERS_MEMORY, "RUNTIME_ERROR", ADD),
    Hack("starts a process", STARTS_A_PROCESS, "RUNTIME_ERROR", ADD),
    Hack("garbage on the reply descriptor", GARBAGE, "RUNTIME_ERROR", ADD),
]

HONEST = [
    Honest("add", ROW.right, ROW.wrong, ADD),
    Honest("the sample", SAMPLE.completion, SAMPLE.wrong, SAMPLES),
    Honest("lists", "        l.distinct.sorted", "        l.distinct", UNIQUE),
    # an object and output of its own, text beyond ASCII, also in the object's initializer (before main)
    Honest("helpers", members("        println(\"adding é ✓ 😀\")\n        Util.sum(x, y)",
                              "object Util { def sum(a: Long, b: Long): Long = a + b }", 'println("hello")'),
           members("        Util.sum(x, y)", "object Util { def sum(a: Long, b: Long): Long = a - b }"), ADD),
    Honest("map", body("val counts = Map[String,Long]()",
                       'for (w <- test.split(" ") if w.nonEmpty) counts(w) = counts.getOrElse(w, 0l) + 1', "counts"),
           body('Map[String,Long]("a" -> 2l)'), HISTOGRAM),
    Honest("a tuple of options",
           "        (lst.filter(_ < 0).reduceOption(_ max _), lst.filter(_ > 0).reduceOption(_ min _))",
           "        (None, None)", EXTREMES),
    Honest("floats", "        number / 2", "        abs(number) / 2", HALF),
    Honest("either", '        if (txt.contains(" ")) Left(txt.split(" ").toList) else Right(txt.length.toLong)',
           '        Left(txt.split(" ").toList)', SPLIT),
    Honest("values of any type", "        values.collect { case v: Long => v }",
           "        values.collect { case v: Int => v.toLong }", FILTER),
    Honest("mutated arguments and exceptions", body('require(b.nonEmpty, "empty")', "val s = b.sum", "b += s",
                                                    'm("sum") = s', "s"), body("b.sum"), APPEND),
    Honest("every width", "        ((i + s).toLong, c.toString + d + (big + 1), e ++ a)",
           "        (i.toLong, c.toString, e)", WIDTHS),
]
UNSUPPORTED = function_style("unsupported/a function", "scala", APPLY.prompt, "        f(f(x))", APPLY.tests,
                             stop_tokens=STOPS)


# scalac takes seconds a compile, and a split candidate compiles twice: the batch may outlast the default timeout
pytestmark = pytest.mark.timeout(1800)


@pytest.fixture(scope="module")
def results(server_address: str) -> dict[str, reward_pb2.ScoreResult]:
    return score_cases(server_address, "scala", HACKS, HELD, HONEST, [UNSUPPORTED])


globals().update(case_tests(HACKS, HELD, HONEST))


def test_a_type_the_wire_does_not_carry_is_not_the_programs_fault(results) -> None:
    result = results["unsupported/a function"]
    assert verdict_name(result) == "INFRA_UNSUPPORTED_TEST", result
    assert not result.HasField("reward")


def test_a_failed_assertion_names_the_tests_file(results) -> None:
    assert "Problem.scala" in results["wrong/add"].detail, results["wrong/add"].detail
