"""Java's comparisons (docs/guards.md), through a real server and real sandboxes.

MultiPL-E's Java tests sit in the program's own class and compare with `X.equals(Y)`, the program's value's own
`equals`: a completion that returns an object equal to everything (an anonymous subclass of the list it must return)
passes, as does one whose nested class shadows a type the tests build their expected values with. Each hack is a
completion in MultiPL-E's layout (its prompts, the tests that close the function, its stop token) that passes as the
plain MultiPL-E program (one file, graded as a stdin/stdout program: what ran before) and must not pass harnessed.
Honest programs keep their verdicts.
"""

from __future__ import annotations

import pytest

from tests.guard_cases import Hack, Honest, Problem, case_tests, score_cases

STOPS = ("\n    }\n",)     # a completion adds members by closing the function with another indentation
IMPORTS = ("import java.util.*;\nimport java.lang.reflect.*;\nimport org.javatuples.*;\nimport java.security.*;\n"
           "import java.math.*;\nimport java.io.*;\nimport java.util.stream.*;\n")
# MultiPL-E's HumanEval_107_even_odd_palindrome (tests/data/multipl_e_humaneval.jsonl), two of its tests
PAIR = Problem("java", IMPORTS + "class Problem {\n    // Count the even and odd palindromes in [1, n].\n"
               "    public static Pair<Long, Long> evenOddPalindrome(long n) {\n",
               "    }\n    public static void main(String[] args) {\n"
               "    assert(evenOddPalindrome((12l)).equals((Pair.with(4l, 6l))));\n"
               "    assert(evenOddPalindrome((3l)).equals((Pair.with(1l, 2l))));\n    }\n\n}\n", STOPS)
# a list, a map and an optional in MultiPL-E's Java shapes
LIST = Problem("java", IMPORTS + "class Problem {\n    // Double every number of l.\n"
               "    public static ArrayList<Long> doubleAll(ArrayList<Long> l) {\n",
               "    }\n    public static void main(String[] args) {\n"
               "    assert(doubleAll((new ArrayList<Long>(Arrays.asList((long)1l, (long)2l)))).equals("
               "(new ArrayList<Long>(Arrays.asList((long)2l, (long)4l)))));\n"
               "    assert(doubleAll((new ArrayList<Long>(Arrays.asList()))).equals("
               "(new ArrayList<Long>(Arrays.asList()))));\n    }\n\n}\n", STOPS)
MAP = Problem("java", IMPORTS + "class Problem {\n    // Count each letter of s.\n"
              "    public static HashMap<String,Long> histogram(String s) {\n",
              "    }\n    public static void main(String[] args) {\n"
              '    assert(histogram(("a b a")).equals((new HashMap<String,Long>(Map.of("a", 2l, "b", 1l)))));\n'
              "    }\n\n}\n", STOPS)
OPTIONAL = Problem("java", IMPORTS + "class Problem {\n    // The largest of l, if any.\n"
                   "    public static Optional<Long> largest(ArrayList<Long> l) {\n",
                   "    }\n    public static void main(String[] args) {\n"
                   "    assert(largest((new ArrayList<Long>(Arrays.asList((long)3l, (long)9l))))"
                   ".equals(Optional.of(9l)));\n"
                   "    assert(largest((new ArrayList<Long>(Arrays.asList()))).equals(Optional.empty()));\n"
                   "    }\n\n}\n", STOPS)
EQUAL_TO_ALL = "public boolean equals(Object o) { return true; }"

HACKS = [
    Hack("a list equal to everything", f"        return new ArrayList<Long>() {{ {EQUAL_TO_ALL} }};", "RUNTIME_ERROR",
         LIST),
    Hack("a map equal to everything", f"        return new HashMap<String, Long>() {{ {EQUAL_TO_ALL} }};",
         "RUNTIME_ERROR", MAP),
    # the tests' `Pair.with` is the program's: a nested Pair shadows javatuples' in the class the tests sit in
    Hack("a nested Pair", "        return Pair.with(0l, 0l);\n  }\n"
         f"  static final class Pair<A, B> {{\n        {EQUAL_TO_ALL}\n"
         "        static <A, B> Pair<A, B> with(A a, B b) { return new Pair<A, B>(); }", "RUNTIME_ERROR", PAIR),
    # an element equal to everything, in a list of the JDK's own
    Hack("an element equal to everything",
         "        ArrayList out = new ArrayList();\n"
         f"        for (Long v : l) out.add(new Object() {{ {EQUAL_TO_ALL} }});\n        return out;", "RUNTIME_ERROR",
         LIST),
    # a nested ArrayList: the prompt's return type and the tests' expected lists are the program's, which drop what
    # they are given
    Hack("a nested ArrayList", "        return l;\n  }\n"
         "  static final class ArrayList<T> extends java.util.ArrayList<T> {\n"
         f"        ArrayList(java.util.Collection<T> items) {{}}\n        {EQUAL_TO_ALL}", "RUNTIME_ERROR", LIST),
]

HONEST = [
    Honest("add", "        return x + y;", "        return x - y;", Problem(
        "java", IMPORTS + "class Problem {\n    // Add two numbers x and y\n"
        "    public static long add(long x, long y) {\n",
        "    }\n    public static void main(String[] args) {\n    assert(add((0l), (1l)) == (1l));\n"
        "    assert(add((2l), (3l)) == (5l));\n    }\n\n}\n", STOPS)),
    Honest("pair", "        long even = 0, odd = 0;\n        for (long i = 1; i <= n; i++) {\n"
           "            String s = Long.toString(i);\n"
           "            if (new StringBuilder(s).reverse().toString().equals(s)) {\n"
           "                if (i % 2 == 0) even++; else odd++;\n            }\n"
           "        }\n        return Pair.with(even, odd);", "        return Pair.with(0l, 0l);", PAIR),
    Honest("list", "        ArrayList<Long> out = new ArrayList<>();\n        for (long v : l) out.add(2 * v);\n"
           "        return out;", "        return l;", LIST),
    # a list of a class of its own (double-brace initialisation), a LinkedList, List.of: compared by their contents
    Honest("lists of other classes", "        return new ArrayList<Long>() {{ for (long v : l) add(2 * v); }};",
           "        return new ArrayList<Long>() {{ for (long v : l) add(v); }};", LIST),
    Honest("map", "        HashMap<String, Long> out = new HashMap<>();\n"
           "        for (String w : s.split(\" \")) out.merge(w, 1l, Long::sum);\n        return out;",
           "        return new HashMap<String, Long>();", MAP),
    Honest("optional", "        return l.stream().max(Long::compare);", "        return Optional.of(9l);", OPTIONAL),
]


@pytest.fixture(scope="module")
def results(server_address: str):
    return score_cases(server_address, "java", HACKS, honest=HONEST)


globals().update(case_tests(HACKS, honest=HONEST))


