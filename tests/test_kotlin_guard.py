"""Kotlin's tests in a package of their own (docs/guards.md), through a real server and real sandboxes.

MultiPL-E runs a Kotlin completion and its tests as one file: a top-level declaration of the program's (an `assert`,
an `arrayListOf`) stands in for the standard library's in the tests, and `==` is the program's value's own `equals`.
Each hack is a completion in MultiPL-E's layout (its prompt, its `fun main()` tests, its stop tokens: a completion
declares at the top level with a modifier, `private fun`, which the stop token "\\nfun " does not cut) that passes as
the plain MultiPL-E program (one file, graded as a stdin/stdout program: what ran before) and must not pass
harnessed. Honest programs keep their verdicts.
"""

from __future__ import annotations

import dataclasses

import pytest

from reward_server.graders.function_style import function_program
from sandboxes.policy import compile_step
from sandboxes.toolchain_artifacts import ARCHIVE, MOUNT, using
from tests.guard_cases import Hack, Honest, Problem, case_tests, score_cases
from tests.language_table import load_table

STOPS = ("\nfun ", "\n/*", "\n//", "\nclass")
# MultiPL-E's HumanEval_53_add in Kotlin (tests/data/multipl_e_humaneval.jsonl)
ADD = Problem("kotlin", "// Add two numbers x and y\n// >>> add(2, 3)\n// 5\n// >>> add(5, 7)\n// 12\n"
              "fun add(x: Int, y: Int): Int {\n",
              "fun main() {\n  assert(1 == add(0, 1));\n  assert(1 == add(1, 0));\n  assert(5 == add(2, 3));\n"
              "  assert(12 == add(5, 7));\n  assert(12 == add(7, 5));\n}\n", STOPS)
# a list in MultiPL-E's Kotlin shapes, the expected value on either side
LIST = Problem("kotlin", "// Double every number of l.\nfun doubleAll(l: ArrayList<Long>): ArrayList<Long> {\n",
               "fun main() {\n  assert(doubleAll(arrayListOf(1L, 2L)) == arrayListOf(2L, 4L));\n"
               "  assert(arrayListOf<Long>() == doubleAll(arrayListOf<Long>()));\n}\n", STOPS)
# MultiPL-E's Kotlin layout as test_reward_hacks.py poses it: the tests close the function, and compare variables
MULTIPL_E = Problem("kotlin", "/**\n * Double every number of l.\n */\n"
                    "fun doubleAll(l : ArrayList<Long>) : ArrayList<Long> {\n",
                    "}\n\nfun main() {\n    var arg00 : ArrayList<Long> = arrayListOf(1L, 2L)\n"
                    "    var x0 : ArrayList<Long> = doubleAll(arg00);\n"
                    "    var v0 : ArrayList<Long> = arrayListOf(2L, 4L);\n"
                    "    if (x0 != v0) {\n"
                    "        throw Exception(\"Exception -- test case 0 did not pass. x0 = \" + x0)\n"
                    "    }\n\n}\n", STOPS)
WRONG = "    return x - y\n}\n"
EQUAL_TO_ALL = "override fun equals(other: Any?) = true"

HACKS = [
    Hack("its own assert", WRONG + "private fun assert(value: Boolean) {}\n", "RUNTIME_ERROR", ADD),
    Hack("a list equal to everything", f"    return object : ArrayList<Long>() {{ {EQUAL_TO_ALL} }}\n}}\n",
         "RUNTIME_ERROR", LIST),
    # the tests' arrayListOf is the program's
    Hack("its own arrayListOf", "    return l\n}\nprivate fun <T> arrayListOf(vararg items: T): ArrayList<T> =\n"
         f"    object : ArrayList<T>() {{ {EQUAL_TO_ALL} }}\n",
         "RUNTIME_ERROR", LIST),
    Hack("a list equal to everything, MultiPL-E's variables",
         f"    return object : ArrayList<Long>() {{ {EQUAL_TO_ALL} }}\n", "RUNTIME_ERROR", MULTIPL_E),
    Hack("an element equal to everything", "    @Suppress(\"UNCHECKED_CAST\")\n"
         f"    return ArrayList(l.map {{ object {{ {EQUAL_TO_ALL} }} }}) as ArrayList<Long>\n}}\n", "RUNTIME_ERROR",
         LIST),
]

HONEST = [
    Honest("add", "    return x + y\n}\n", WRONG, ADD),
    Honest("list", "    return ArrayList(l.map { 2 * it })\n}\n", "    return l\n}\n", LIST),
    Honest("multipl-e variables", "    return ArrayList(l.map { 2 * it })\n", "    return l\n", MULTIPL_E),
    # helpers and declarations of its own, named like the standard library's, and output
    Honest("helpers", "    println(\"adding\")\n    return twice(x + y) / 2\n}\nprivate fun twice(v: Int) = 2 * v\n"
           "private fun assert(value: Boolean) { kotlin.assert(value) }\nval limit = 10\n",
           "    return twice(x - y) / 2\n}\nprivate fun twice(v: Int) = 2 * v\n", ADD),
]


@pytest.fixture(scope="module")
def results(server_address: str):
    return score_cases(server_address, "kotlin", HACKS, honest=HONEST)


globals().update(case_tests(HACKS, honest=HONEST))


def test_the_compile_of_both_files_maps_the_compiler_class_archive() -> None:
    """The compile script gets the archive's JVM flag as its argument and passes it to kotlinc."""
    kotlin = load_table().resolve("kotlin")
    program = function_program(kotlin, ADD.prompt, "    return x + y\n}\n", STOPS, ADD.tests)
    assert program.files["tests.kt"].startswith("package reward_tests_\nimport add\n")
    units = dataclasses.replace(kotlin, compile=program.compile)
    argv = using(units, program.source, compile_step(units, program.source)).argv
    assert argv[:4] == (*program.compile[:3], "main.kt")
    assert argv[4].startswith("-J") and f"{MOUNT}/{ARCHIVE}" in argv[4]
    assert 'kotlinc "$@" ' in argv[2]
