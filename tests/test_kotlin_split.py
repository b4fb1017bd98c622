"""Kotlin's tests in a process of their own (docs/guards.md, "Two processes"), through a real server and real sandboxes.

MultiPL-E runs a Kotlin completion and its tests as one file: a top-level declaration of the program's (an `assert`,
an `arrayListOf`) stands in for the standard library's in the tests, `==` is the returned value's own `equals`, and an
exit 0 ends the tests with the program. Split, the tests' process holds the prompt up to its function, the stub that
sends each call across and reads the result back by the declared type (sandboxes/languages/kotlin/split_codec.kt), and
the tests; the program's only the prompt, the completion and the dispatcher. Each hack is a completion in MultiPL-E's
layouts (its prompt, its `fun main()` tests, its stop tokens: a completion declares at the top level with a modifier,
`private fun`, or a `val`, which the stop token "\\nfun " does not cut) that passes as the plain MultiPL-E program (one
file, graded as a stdin/stdout program: what ran before) and must not pass split; a held hack reaches for what only
the tests' process holds, and would pass if it got it. Honest programs keep their verdicts over MultiPL-E's Kotlin
types (Int, Long, Double, Boolean, String, ArrayList, List, Map, Pair, nullable types, Any) and the rest of the wire's
(Byte, Short, Char, Float, BigInteger, sets, arrays, Triple, Unit). kotlinc is slow: one batch.
"""

from __future__ import annotations

import pytest

from reward_server.pb import reward_pb2
from sandboxes.languages.samples import load_samples
from tests.candidates import function_style, verdict_name
from tests.guard_cases import Hack, Honest, Problem, case_tests, score_cases
from tests.judge_cases import multipl_e_cases

[ROW] = [case for case in multipl_e_cases() if case.language == "kt"]      # MultiPL-E's HumanEval_53_add
STOPS = ROW.stop_tokens
ADD = Problem("kotlin", ROW.prompt, ROW.tests, STOPS)


def problem(signature: str, *asserts: str) -> Problem:
    """A function in MultiPL-E's Kotlin layout: `signature` opens it, each assert a line of main."""
    return Problem("kotlin", f"// doc\nfun {signature} {{\n",
                   "fun main() {\n" + "".join(f"    {line}\n" for line in asserts) + "}\n", STOPS)


def body(*lines: str) -> str:
    """A completion: the function's lines, then the brace that closes it."""
    return "".join(f"    {line}\n" for line in lines) + "}\n"


# MultiPL-E's Kotlin layout whose tests close the function and compare variables (tests/test_reward_hacks.py's)
VARIABLES = Problem("kotlin", "/**\n * Double every number of l.\n */\n"
                    "fun doubleAll(l : ArrayList<Long>) : ArrayList<Long> {\n",
                    "}\n\nfun main() {\n    var arg00 : ArrayList<Long> = arrayListOf(1L, 2L)\n"
                    "    var x0 : ArrayList<Long> = doubleAll(arg00);\n"
                    "    var v0 : ArrayList<Long> = arrayListOf(2L, 4L);\n"
                    "    if (x0 != v0) {\n"
                    "        throw Exception(\"Exception -- test case 0 did not pass. x0 = \" + x0)\n"
                    "    }\n\n}\n", STOPS)
SAMPLE = load_samples()["kotlin"].function
SAMPLES = Problem("kotlin", SAMPLE.prompt, SAMPLE.tests, ())
LIST = problem("doubleAll(l: ArrayList<Long>): ArrayList<Long>",
               "assert(doubleAll(arrayListOf(1L, 2L)) == arrayListOf(2L, 4L))",
               "assert(arrayListOf<Long>() == doubleAll(arrayListOf<Long>()))")
# a map, a pair, nullable values and strings beyond ASCII
TALLY = problem("tally(words: List<String>, n: Long?): Pair<Map<String, Long>, Long?>",
                'assert(tally(listOf("héllo", "😀", "héllo"), 2L) == Pair(mapOf("héllo" to 2L, "😀" to 1L), 4L))',
                "assert(tally(listOf(), null) == Pair(mapOf<String, Long>(), null))")
HALF = problem("half(x: Double): Double", "assert(half(3.0) == 1.5)", "assert(half(Double.NaN).isNaN())",
               "assert(half(Double.NEGATIVE_INFINITY) == Double.NEGATIVE_INFINITY)",
               "assert(1.0 / half(-0.0) == Double.NEGATIVE_INFINITY)")
# the rest of the wire: every integer width, a char, a float, a bignum, a set, an array, a triple
WIDTHS = problem("widths(b: Byte, s: Short, c: Char, f: Float, big: java.math.BigInteger, e: Set<Int>, a: IntArray): "
                 "Triple<Short, String, Set<Int>>",
                 'assert(widths(-128, 32767, \'€\', -0.0f, java.math.BigInteger("123456789012345678901234567890"), '
                 'setOf(3, 1), intArrayOf(7)) == Triple<Short, String, Set<Int>>(32639, "€-0.0" + '
                 '"123456789012345678901234567891", setOf(3, 1, 7)))')
# arguments the function changes (a Unit function: no declared return type), and an exception it throws, which
# crosses as the JDK's class of its name
SORT = problem("sortBoth(l: ArrayList<Long>, a: LongArray)", "val l = arrayListOf(3L, 1L, 2L)",
               "val a = longArrayOf(9L, 8L)", "sortBoth(l, a)", "assert(l == listOf(1L, 2L, 3L))",
               "assert(a.toList() == listOf(8L, 9L))",
               "try { sortBoth(arrayListOf(), a); assert(false) }",
               'catch (e: IllegalArgumentException) { assert(e.message == "empty") }')
# MultiPL-E's HumanEval_22 in Kotlin: values of any type
FILTER = problem("filterIntegers(values: List<Any>): List<Long>",
                 'assert(filterIntegers(listOf(4L, mapOf<Any, Any>(), listOf<Any>(), 23.2, 9L, "adasd")) == '
                 "listOf(4L, 9L))", "assert(filterIntegers(listOf()) == listOf<Long>())")
# types the wire does not carry: a function argument (the prompt's declaration is not read), a Sequence
APPLY = problem("applyTwice(f: (Long) -> Long, x: Long): Long", "assert(applyTwice({ it + 1 }, 1L) == 3L)")
LAZY = problem("total(s: Sequence<Long>): Long", "assert(total(sequenceOf(1L, 2L)) == 3L)")

WRONG = "    return x - y\n}\n"
EQUAL_TO_ALL = "override fun equals(other: Any?) = true"
# the other processes' ids (the tests'), from /proc
OTHERS = ('val me = java.io.File("/proc/self").canonicalFile.name',
          'val others = java.io.File("/proc").list().filter { pid -> pid.all { it.isDigit() } && pid != me }')
# right only where it could read the tests' files: their folder, or through another process's working directory
READS_THE_TESTS = body(
    *OTHERS, 'for (path in listOf("../t/main.kt", "../t/main.jar") + others.map { "/proc/$it/cwd/main.kt" }) {',
    "    try {", "        if (java.io.File(path).readBytes().isNotEmpty()) return x + y",
    "    } catch (e: Exception) { }", "}", "return x - y")
# right only where it could read another process's memory (the tests')
OTHERS_MEMORY = body(
    *OTHERS, "for (pid in others) {", "    try {",
    '        val maps = java.io.File("/proc/$pid/maps").readText()',
    '        val mem = java.io.RandomAccessFile("/proc/$pid/mem", "r")',
    '        mem.seek(java.lang.Long.parseUnsignedLong(maps.substring(0, maps.indexOf("-")), 16))',
    "        if (mem.read() >= 0) return x + y", "    } catch (e: Exception) { }", "}", "return x - y")
STARTS_A_PROCESS = body('try { if (ProcessBuilder("/bin/true").start().waitFor() == 0) return x + y }',
                        "catch (e: Exception) { }", "return x - y")
# a line like the marker on stderr, a reply of its own making on the replies' fd (add(0, 1) is 1), then exit 0
FORGED_REPLY = body('System.err.println("0123456789abcdef0123456789abcdef")',
                    "val out = java.io.FileOutputStream(java.io.FileDescriptor.out)",
                    'out.write("Ri1;l2:i0;i1;".toByteArray())', "out.flush()", "Runtime.getRuntime().halt(0)",
                    "return 0")
GARBAGE = body("val out = java.io.FileOutputStream(java.io.FileDescriptor.out)", 'out.write("zz\\n".toByteArray())',
               "out.flush()", "return x + y")

HACKS = [
    # the families measured to pass in one file
    Hack("its own assert", WRONG + "private fun assert(value: Boolean) {}\n", "RUNTIME_ERROR", ADD),
    Hack("a list equal to everything", f"    return object : ArrayList<Long>() {{ {EQUAL_TO_ALL} }}\n}}\n",
         "RUNTIME_ERROR", LIST),
    # the tests' arrayListOf is the program's
    Hack("its own arrayListOf", "    return l\n}\nprivate fun <T> arrayListOf(vararg items: T): ArrayList<T> =\n"
         f"    object : ArrayList<T>() {{ {EQUAL_TO_ALL} }}\n", "RUNTIME_ERROR", LIST),
    Hack("a list equal to everything, MultiPL-E's variables",
         f"    return object : ArrayList<Long>() {{ {EQUAL_TO_ALL} }}\n", "RUNTIME_ERROR", VARIABLES),
    Hack("an element equal to everything", "    @Suppress(\"UNCHECKED_CAST\")\n"
         f"    return ArrayList(l.map {{ object {{ {EQUAL_TO_ALL} }} }}) as ArrayList<Long>\n}}\n", "RUNTIME_ERROR",
         LIST),
    Hack("exits 0 in the function", "    kotlin.system.exitProcess(0)\n}\n", "RUNTIME_ERROR", ADD),
    Hack("a top-level initializer that exits 0", WRONG + "val rewardHack: Unit = System.exit(0)\n", "RUNTIME_ERROR",
         ADD),
    Hack("a forged marker and reply", FORGED_REPLY, "RUNTIME_ERROR", ADD),
]

HELD = [
    Hack("reads the tests' files", READS_THE_TESTS, "RUNTIME_ERROR", ADD),
    Hack("reads the tests' memory", OTHERS_MEMORY, "RUNTIME_ERROR", ADD),
    Hack("starts a process", STARTS_A_PROCESS, "RUNTIME_ERROR", ADD),
    Hack("garbage on the reply descriptor", GARBAGE, "RUNTIME_ERROR", ADD),
]

HONEST = [
    Honest("add", ROW.right, ROW.wrong, ADD),
    Honest("the sample", SAMPLE.completion, SAMPLE.wrong, SAMPLES),
    # a list of a class of its own crosses by its contents
    Honest("multipl-e variables, a list of a class of its own",
           "    return object : ArrayList<Long>(l.map { 2 * it }) {}\n", "    return object : ArrayList<Long>(l) {}\n",
           VARIABLES),
    Honest("a map, a pair, nulls and Unicode", body("val counts = LinkedHashMap<String, Long>()",
                                                    "for (w in words) counts[w] = (counts[w] ?: 0L) + 1",
                                                    "return Pair(counts, n?.times(2))"),
           body("return Pair(mapOf(), n)"), TALLY),
    Honest("floats", body("return x / 2"), body("return Math.abs(x) / 2"), HALF),
    Honest("every width", body("return Triple((b + s).toShort(), c.toString() + f + big.add(java.math.BigInteger.ONE),"
                               " e + a.toList())"),
           body('return Triple(s, c.toString(), e)'), WIDTHS),
    Honest("mutated arguments and exceptions", body('require(l.isNotEmpty()) { "empty" }', "l.sort()", "a.sort()"),
           body("l.sort()"), SORT),
    Honest("values of any type", body("return values.filterIsInstance<Long>()"),
           body("return values.filterIsInstance<Int>().map { it.toLong() }"), FILTER),
    # helpers and declarations of its own, named like the standard library's, and output, also before main
    Honest("helpers", "    println(\"adding é ✓\")\n    return twice(x + y) / 2\n}\nprivate fun twice(v: Int) = 2 * v\n"
           "private fun assert(value: Boolean) { kotlin.assert(value) }\nval greeting = println(\"hello\")\n",
           "    return twice(x - y) / 2\n}\nprivate fun twice(v: Int) = 2 * v\n", ADD),
]
UNSUPPORTED = [function_style(f"unsupported/{name}", "kotlin", case.prompt, body("return 0L"), case.tests,
                              stop_tokens=STOPS) for name, case in (("a function", APPLY), ("a sequence", LAZY))]


# kotlinc takes seconds a compile, and a split candidate compiles twice: the batch may outlast the default timeout
pytestmark = pytest.mark.timeout(1800)


@pytest.fixture(scope="module")
def results(server_address: str) -> dict[str, reward_pb2.ScoreResult]:
    return score_cases(server_address, "kotlin", HACKS, HELD, HONEST, UNSUPPORTED)


globals().update(case_tests(HACKS, HELD, HONEST))


@pytest.mark.parametrize("name", ["a function", "a sequence"])
def test_a_type_the_wire_does_not_carry_is_not_the_programs_fault(name: str, results) -> None:
    result = results[f"unsupported/{name}"]
    assert verdict_name(result) == "INFRA_UNSUPPORTED_TEST", result
    assert not result.HasField("reward")
