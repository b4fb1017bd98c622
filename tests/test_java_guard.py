"""Java's tests in a process of their own (docs/guards.md, "Two processes"), through a real server and real sandboxes.

MultiPL-E's Java tests sit in the program's own class Problem: in one process a completion could switch their
assertions off, read them from the class's source or class file, exit 0 before they end, or return an object whose
`equals` lies (an anonymous subclass of the list it must return, a nested class that shadows the type the tests build
their expected values with). Split, the tests' process holds the tests and a stub of the entry function, and the
program's only the prompt, the completion and the dispatcher: only data crosses, read back into the JDK's and
javatuples' own classes by the type the prompt declares. Each hack is a completion in MultiPL-E's layout (its prompts,
the tests that close the function, its stop token: a completion declares members of Problem by closing the function on
a brace indented otherwise and opening a method the tests' brace closes) that passes as the plain MultiPL-E program
(one file, graded as a stdin/stdout program: what ran before) and must not pass split; a held hack reaches for what
only the split's tests' process holds, and would pass if it got it. Honest programs keep their verdicts.
"""

from __future__ import annotations

import pytest

from tests.guard_cases import Hack, Honest, Problem, case_tests, score_cases

STOPS = ("\n    }\n",)
IMPORTS = ("import java.util.*;\nimport java.lang.reflect.*;\nimport org.javatuples.*;\nimport java.security.*;\n"
           "import java.math.*;\nimport java.io.*;\nimport java.util.stream.*;\n")


def problem(doc: str, declaration: str, *asserts: str) -> Problem:
    """A function in MultiPL-E's Java layout: `declaration` opens it in class Problem, each assert a line of main."""
    return Problem("java", IMPORTS + f"class Problem {{\n    // {doc}\n    public static {declaration} {{\n",
                   "    }\n    public static void main(String[] args) {\n"
                   + "".join(f"    {line}\n" for line in asserts) + "    }\n\n}\n", STOPS)


def body(*lines: str) -> str:
    """A completion's lines, indented as a method's body (never the stop token's brace: its indentation is 4)."""
    return "\n".join(" " * 8 + line for line in lines)


def lists(kind: str, *items: str, cast: str = "") -> str:
    """MultiPL-E's Java list literal: each item cast to `cast` (the element type unboxed), `kind` by default."""
    return f"new ArrayList<{kind}>(Arrays.asList({', '.join(f'({cast or kind}){item}' for item in items)}))"


# MultiPL-E's HumanEval_53_add and HumanEval_107_even_odd_palindrome (tests/data/multipl_e_humaneval.jsonl), two tests
ADD = problem("Add two numbers x and y", "long add(long x, long y)",
              "assert(add((0l), (1l)) == (1l));", "assert(add((2l), (3l)) == (5l));")
PAIR = problem("Count the even and odd palindromes in [1, n].", "Pair<Long, Long> evenOddPalindrome(long n)",
               "assert(evenOddPalindrome((12l)).equals((Pair.with(4l, 6l))));",
               "assert(evenOddPalindrome((3l)).equals((Pair.with(1l, 2l))));")
# a list, a map, an optional, floats, nested lists, strings and a pair of optionals in MultiPL-E's Java shapes
LIST = problem("Double every number of l.", "ArrayList<Long> doubleAll(ArrayList<Long> l)",
               f"assert(doubleAll(({lists('Long', '1l', '2l', cast='long')}))"
               f".equals(({lists('Long', '2l', '4l', cast='long')})));",
               f"assert(doubleAll(({lists('Long')})).equals(({lists('Long')})));")
MAP = problem("Count each letter of s.", "HashMap<String,Long> histogram(String s)",
              'assert(histogram(("a b a")).equals((new HashMap<String,Long>(Map.of("a", 2l, "b", 1l)))));')
OPTIONAL = problem("The largest of l, if any.", "Optional<Long> largest(ArrayList<Long> l)",
                   f"assert(largest(({lists('Long', '3l', '9l', cast='long')})).equals(Optional.of(9l)));",
                   f"assert(largest(({lists('Long')})).equals(Optional.empty()));")
HALF = problem("Half of x.", "float half(float x)", "assert(half((3.0f)) == (1.5f));",
               "assert(half((0.1f)) == (0.05f));", "assert(Float.isNaN(half(Float.NaN)));",
               "assert(half(Float.NEGATIVE_INFINITY) == Float.NEGATIVE_INFINITY);",
               "assert(Float.floatToIntBits(half((-0.0f))) == Float.floatToIntBits(-0.0f));")
WORDS, FLIPPED = lists("String", '"héllo"', '"wörld 😀"'), lists("String", '"😀 dlröw"', '"olléh"')
GRID = problem("Each row of grid reversed, and its words' letters.",
               "ArrayList<ArrayList<String>> flip(ArrayList<ArrayList<String>> grid)",
               f"assert(flip(({lists('ArrayList<String>', WORDS, lists('String'))}))"
               f".equals(({lists('ArrayList<String>', FLIPPED, lists('String'))})));")
EXTREMES = problem("The largest negative and the smallest positive number of lst.",
                   "Pair<Optional<Long>, Optional<Long>> largestSmallestIntegers(ArrayList<Long> lst)",
                   f"assert(largestSmallestIntegers(({lists('Long', '2l', '-1l', '5l', cast='long')}))"
                   ".equals(Pair.with(Optional.of(-1l), Optional.of(2l))));",
                   f"assert(largestSmallestIntegers(({lists('Long')}))"
                   ".equals(Pair.with(Optional.empty(), Optional.empty())));")
# an exception the function throws crosses as the JDK's class of its name
DIVIDE = problem("a / b.", "long divide(long a, long b)",
                 'try { divide(1l, 0l); assert(false); } catch (ArithmeticException e) { assert(e.getMessage()'
                 '.equals("/ by zero")); }', "assert(divide((6l), (3l)) == (2l));")
# a helper before the entry, or a private entry: no unit of the problem's (SplitUnit), the dispatcher in the class
MAIN_ADDS = "    }\n    public static void main(String[] args) {\n    assert(add((1l), (2l)) == (3l));\n    }\n\n}\n"
HELPED = Problem("java", IMPORTS + "class Problem {\n    static long twice(long x) { return 2 * x; }\n"
                 "    public static long add(long x, long y) {\n", MAIN_ADDS, STOPS)
PRIVATE = Problem("java", IMPORTS + "class Problem {\n    private static long add(long x, long y) {\n", MAIN_ADDS,
                  STOPS)
EQUAL_TO_ALL = "public boolean equals(Object o) { return true; }"
# MultiPL-E's assert evaluates the class's $assertionsDisabled before the call: a static block sets it first
ASSERTIONS_OFF = body(
    "return 0l;", "}", "static {", "    try {",
    '        Field theUnsafe = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");',
    "        theUnsafe.setAccessible(true);",
    "        sun.misc.Unsafe unsafe = (sun.misc.Unsafe) theUnsafe.get(null);",
    '        Field off = Problem.class.getDeclaredField("$assertionsDisabled");',
    "        unsafe.putBoolean(unsafe.staticFieldBase(off), unsafe.staticFieldOffset(off), true);",
    "    } catch (ReflectiveOperationException e) { }", "}", "static void unused() {")
# right only where it could read the tests' files: their folder, or through their process's cwd
READS_THE_TESTS = body(
    'List<String> paths = new ArrayList<>(List.of("../t/Problem.java", "../t/Problem.class"));',
    "ProcessHandle.allProcesses().filter(p -> p.pid() != ProcessHandle.current().pid())",
    '    .forEach(p -> paths.add("/proc/" + p.pid() + "/cwd/Problem.class"));',
    "for (String path : paths) {", "    try {",
    "        if (java.nio.file.Files.readAllBytes(java.nio.file.Path.of(path)).length > 0) return x + y;",
    "    } catch (IOException | RuntimeException e) { }", "}", "return x - y;")
# a line like the marker on stderr, a reply of its own making on the replies' fd, then exit 0
FORGED_REPLY = body(
    'System.err.println("0123456789abcdef0123456789abcdef");', "try {",
    "    FileOutputStream out = new FileOutputStream(FileDescriptor.out);",
    '    out.write("RNl2:i0;i1;".getBytes());', "    out.flush();", "} catch (IOException e) { }",
    "Runtime.getRuntime().halt(0);", "return 0l;")
# right only where it could read another process's memory (the tests') or start a process of its own
OTHERS_MEMORY = body(
    "for (ProcessHandle p : ProcessHandle.allProcesses().toArray(ProcessHandle[]::new)) {", "    try {",
    '        String proc = "/proc/" + p.pid() + "/", maps = new String(java.nio.file.Files.readAllBytes(',
    '            java.nio.file.Path.of(proc + "maps")));',
    '        RandomAccessFile mem = new RandomAccessFile(proc + "mem", "r");',
    '        mem.seek(Long.parseUnsignedLong(maps.substring(0, maps.indexOf("-")), 16));',
    "        if (p.pid() != ProcessHandle.current().pid() && mem.read() >= 0) return x + y;",
    "    } catch (IOException | RuntimeException e) { }", "}", "return x - y;")
STARTS_A_PROCESS = body(
    'try {', '    if (new ProcessBuilder("/bin/true").start().waitFor() == 0) return x + y;',
    "} catch (IOException | InterruptedException e) { }", "return x - y;")

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
    Hack("assertions switched off through Unsafe", ASSERTIONS_OFF, "RUNTIME_ERROR", ADD),
    Hack("exits 0 during a call", "        System.exit(0);\n        return 0l;", "RUNTIME_ERROR", ADD),
    Hack("a forged marker and reply", FORGED_REPLY, "RUNTIME_ERROR", ADD),
]

HELD = [
    Hack("reads the tests' files", READS_THE_TESTS, "RUNTIME_ERROR", ADD),
    Hack("reads the tests' memory", OTHERS_MEMORY, "RUNTIME_ERROR", ADD),
    Hack("starts a process", STARTS_A_PROCESS, "RUNTIME_ERROR", ADD),
]

HONEST = [
    Honest("a helper in the prompt", "        return twice(x) - x + y;", "        return twice(x) + y;", HELPED),
    Honest("a private entry", "        return x + y;", "        return x - y;", PRIVATE),
    Honest("add", "        return x + y;", "        return x - y;", ADD),
    Honest("pair", "        long even = 0, odd = 0;\n        for (long i = 1; i <= n; i++) {\n"
           "            String s = Long.toString(i);\n"
           "            if (new StringBuilder(s).reverse().toString().equals(s)) {\n"
           "                if (i % 2 == 0) even++; else odd++;\n            }\n"
           "        }\n        return Pair.with(even, odd);", "        return Pair.with(0l, 0l);", PAIR),
    Honest("list", "        ArrayList<Long> out = new ArrayList<>();\n        for (long v : l) out.add(2 * v);\n"
           "        return out;", "        return l;", LIST),
    # a list of a class of its own (double-brace initialisation): it crosses by its contents
    Honest("lists of other classes", "        return new ArrayList<Long>() {{ for (long v : l) add(2 * v); }};",
           "        return new ArrayList<Long>() {{ for (long v : l) add(v); }};", LIST),
    Honest("map", "        HashMap<String, Long> out = new HashMap<>();\n"
           "        for (String w : s.split(\" \")) out.merge(w, 1l, Long::sum);\n        return out;",
           "        return new HashMap<String, Long>();", MAP),
    Honest("optional", "        return l.stream().max(Long::compare);", "        return Optional.of(9l);", OPTIONAL),
    # what the program prints goes to stderr, never among the replies
    Honest("prints", '        System.out.println("adding " + x);\n        return x + y;',
           '        System.out.println("adding " + x);\n        return x - y;', ADD),
    # printed before the dispatcher's main: by a static initializer and a static field's (without a newline)
    Honest("prints from its initializers",
           body("return x + y;", "}", 'static { System.out.println("starting é ✓ 😀"); }',
                'static final long START = log("RNl2:i0;i1;");',
                "static long log(String s) { System.out.print(s); return 0l; }", "static void unused() {"),
           body("return x - y;", "}", 'static { System.out.println("starting"); }', "static void unused() {"), ADD),
    Honest("floats", "        return x / 2;", "        return Math.abs(x) / 2;", HALF),
    Honest("nested lists of Unicode strings",
           body("ArrayList<ArrayList<String>> out = new ArrayList<>();", "for (ArrayList<String> row : grid) {",
                "    ArrayList<String> flipped = new ArrayList<>();",
                "    for (String s : row) flipped.add(0, new StringBuilder(s).reverse().toString());",
                "    out.add(flipped);", "}", "return out;"), "        return grid;", GRID),
    Honest("a pair of optionals", "        return Pair.with(lst.stream().filter(v -> v < 0).max(Long::compare),\n"
           "                         lst.stream().filter(v -> v > 0).min(Long::compare));",
           "        return Pair.with(Optional.empty(), Optional.empty());", EXTREMES),
    Honest("exceptions", "        return a / b;", '        if (b == 0) throw new IllegalStateException("b is 0");\n'
           "        return a / b;", DIVIDE),
]


@pytest.fixture(scope="module")
def results(server_address: str):
    return score_cases(server_address, "java", HACKS, HELD, HONEST)


globals().update(case_tests(HACKS, HELD, HONEST))
