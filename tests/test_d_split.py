"""D's tests in a process of their own (docs/guards.md, "Two processes"), through a real server and real sandboxes.

The tests' side is the prompt up to its function's declaration, the stub (sandboxes/languages/d/split_stub.d) that
sends each call's arguments across and reads the result back into the declared types, and the unittest blocks under
the harness's unit tester; the program's side is the prompt, the completion and the dispatcher, which moves stdout
away before the program's first constructor. Problems are in MultiPL-E's own layout (humaneval_to_d.py: the prompt
ends with the declaration, the completion opens and closes the body, a unittest block aliases the function as
`candidate`, its stop tokens): hacks that pass as the plain MultiPL-E program must not pass split, what reaches for the
tests' process fails, and honest programs keep their verdicts over the types the translator writes (long, float,
bool, string, arrays, Tuple, Nullable, associative arrays) and the rest of D's (every integer width, BigInt, the
character and string types, double, static arrays).
"""

from __future__ import annotations

import re

import pytest

from reward_server.pb import reward_pb2
from tests.candidates import function_style, verdict_name
from tests.guard_cases import Hack, Honest, Problem, case_tests, score_cases
from tests.judge_cases import multipl_e_cases

STOPS = ("\n\n", "\nvoid", "\nbool", "\nint")
IMPORTS = "import std.typecons;\nimport std.math;\n"


def problem(signature: str, asserts: str, imports: str = IMPORTS) -> Problem:
    """A MultiPL-E problem: the prompt ends with `signature`, the unittest block calls it as `candidate`."""
    entry = re.search(r"(\w+)\(", signature)[1]
    return Problem("d", f"{imports}/*\ndoc\n*/\n{signature} \n",
                   f"unittest\n{{\n    alias candidate = {entry};\n\n{asserts}}}\nvoid main(){{}}", STOPS)


def body(*lines: str) -> str:
    """A completion: the function's body, opened and closed."""
    return "{\n" + "".join(f"    {line}\n" for line in lines) + "}"


ADD = problem("long add(long x, long y)", "    assert(candidate(0L, 1L) == 1L);\n    assert(candidate(1L, 0L) == 1L);\n"
              "    assert(candidate(2L, 3L) == 5L);\n    assert(candidate(5L, 7L) == 12L);\n"
              "    assert(candidate(7L, 5L) == 12L);\n")
# HumanEval_107 as MultiPL-E poses it: a tuple compared with std.typecons' tuple(...)
PALINDROMES = problem("Tuple!(long, long) even_odd_palindrome(long n)",
                      "    assert(candidate(123L) == tuple(8L, 13L));\n    assert(candidate(12L) == tuple(4L, 6L));\n")
WRONG = "    return x - y;\n"
# what the function's own line ends with, so that the items after it are the program's own (no stop token cuts them)
ITEMS = "{\n    return x - y;\n}\n"

HACKS = [
    Hack("exits 0 during a call", body("import core.stdc.stdlib : exit;", "exit(0);", "return 0;"),
         "RUNTIME_ERROR", ADD),
    Hack("a module constructor that exits 0",
         ITEMS + "static this() {\n    import core.stdc.stdlib : exit;\n    exit(0);\n}", "RUNTIME_ERROR", ADD),
    Hack("a unit tester of its own that runs nothing",
         ITEMS + "shared static this() {\n    import core.runtime : Runtime, UnitTestResult;\n"
         "    Runtime.extendedModuleUnitTester = () => UnitTestResult(0, 0, false, false);\n}", "RUNTIME_ERROR", ADD),
    # the family: each child returns its guess to the tests and runs the rest of them; the parent exits 0 as
    # soon as one child passed them all
    Hack("forks a child per guess", body(
        "import core.sys.posix.sys.wait : waitpid;", "import core.sys.posix.unistd : _exit, fork;",
        "foreach (guess; 0 .. 20) {", "    auto child = fork();", "    if (child == 0) return guess;",
        "    int status;", "    if (child > 0 && waitpid(child, &status, 0) == child && status == 0) _exit(0);", "}",
        "return -1;"), "RUNTIME_ERROR", ADD),
    # the module's own `tuple` shadows the one the prompt imports, in the tests too when they share the module
    Hack("its own tuple(), which the tests compare with",
         "{\n    return Tuple!(long, long)(0, 0);\n}\nTuple!(long, long) tuple(A...)(A a) {\n"
         "    return Tuple!(long, long)(0, 0);\n}", "RUNTIME_ERROR", PALINDROMES),
]
# fail plainly too: split, they still fail
HELD = [
    Hack("reads the answers from the tests' source", body(
        "import std.conv : parse, to;", "import std.file : readText;", "import std.string : indexOf;",
        'auto text = readText("../t/main.d");',
        'auto call = "candidate(" ~ x.to!string ~ "L, " ~ y.to!string ~ "L) == ";',
        "auto rest = text[text.indexOf(call) + call.length .. $];", "return parse!long(rest);"), "RUNTIME_ERROR", ADD),
    Hack("right only where it read another process's memory", body(
        "import core.sys.posix.unistd : getpid;", "import std.algorithm : all;", "import std.ascii : isDigit;",
        "import std.conv : to;", "import std.file : dirEntries, SpanMode;", "import std.path : baseName;",
        "import std.stdio : File;", "ubyte[4096] chunk;", "size_t read_;",
        'foreach (entry; dirEntries("/proc", SpanMode.shallow)) {', "    auto pid = entry.name.baseName;",
        "    if (!pid.all!isDigit || pid == getpid().to!string) continue;",
        '    try read_ += File("/proc/" ~ pid ~ "/mem", "rb").rawRead(chunk[]).length;',
        "    catch (Exception) {}", "}", "return read_ > 0 ? x + y : -1;"), "RUNTIME_ERROR", ADD),
    Hack("garbage on the replies", body("import core.sys.posix.unistd : write;", 'write(3, "R?garbage".ptr, 9);',
                                        "return x + y;"), "RUNTIME_ERROR", ADD),
    Hack("a well-formed reply ahead of its own", body(
        "import core.sys.posix.unistd : write;", 'write(3, "Ri1;l2:i0;i0;".ptr, 13);', "return x + y;"),
        "RUNTIME_ERROR", ADD),
    Hack("kills every process it can", body("import core.sys.posix.signal : kill, SIGKILL;", "kill(-1, SIGKILL);",
                                            "return x - y;"), "RUNTIME_ERROR", ADD),
]

HONEST = [
    Honest("floats: NaN, infinities, -0.0, a float's own rounding", body("return x * 2;"), body("return x;"),
           problem("float twice(float x)", "    assert(isNaN(candidate(float.nan)));\n"
                   "    assert(candidate(float.infinity) == float.infinity);\n    assert(signbit(candidate(-0.0f)));\n"
                   "    assert(candidate(1.1f) == 2.2f);\n    assert(candidate(3.4e38f) == float.infinity);\n")),
    Honest("unicode and NUL in strings", body('return s ~ "\u00e9\u4e2d\U0001F600";'), body("return s;"),
           problem("string more(string s)",
                   '    assert(candidate("h\u00e9\\nx") == "h\u00e9\\nx\u00e9\u4e2d\U0001F600");\n'
                   '    assert(candidate("a\\0b") == "a\\0b\u00e9\u4e2d\U0001F600");\n')),
    Honest("a tuple of Nullables (HumanEval_136's shape)", body(
        "Nullable!long a, b;", "foreach (x; lst) {", "    if (x < 0 && (a.isNull || x > a.get)) a = x;",
        "    if (x > 0 && (b.isNull || x < b.get)) b = x;", "}", "return tuple(a, b);"),
        body("return tuple(Nullable!long.init, Nullable!long.init);"),
        problem("Tuple!(Nullable!(long), Nullable!(long)) largest_smallest_integers(long[] lst)",
                "{\n        auto result = candidate([2L, 4L, 1L, 3L, 5L, 7L]);\n        assert(result[0].isNull);\n"
                "        assert(!result[1].isNull && result[1].get == 1L);\n}\n")),
    Honest("an associative array in a Nullable, empty as null (HumanEval_111's shape)", body(
        "long[string] m;", "foreach (c; test) if (c != ' ') m[[c]]++;",
        "return m.length ? m.nullable : Nullable!(long[string]).init;"), body("return Nullable!(long[string]).init;"),
        problem("Nullable!(long[string]) histogram(string test)",
                '{\n        auto result = candidate("a b b a");\n'
                '        assert(!result.isNull && result.get == ["a": 2L, "b": 2L]);\n}\n'
                '{\n        auto result = candidate("");\n        assert(result.isNull);\n}\n')),
    Honest("nested arrays and an array of tuples", body(
        "Tuple!(long, long)[] found;", "foreach (i, row; lst) foreach_reverse (j, v; row) if (v == x)",
        "    found ~= tuple(cast(long) i, cast(long) j);", "return found;"), body("return [];"),
        problem("Tuple!(long, long)[] get_row(long[][] lst, long x)",
                "    assert(candidate([[1L, 2L], [2L, 1L]], 1L) == [tuple(0L, 0L), tuple(1L, 1L)]);\n"
                "    assert(candidate([], 1L) == []);\n")),
    Honest("arrays it changes: a ref one grown, a shared one written", body(
        "l ~= 7;", "m[0] = 9;", "return l.length;"), body("return l.length + 1;"),
        problem("long grow(ref long[] l, long[] m)", "    long[] v = [1L];\n    long[] w = [1L, 2L];\n"
                "    assert(candidate(v, w) == 2);\n    assert(v == [1L, 7L]);\n    assert(w == [9L, 2L]);\n")),
    Honest("the exception it throws", body('if (i >= l.length) throw new Exception("out of range");', "return l[i];"),
           body("return 0;"), problem("long at(long[] l, long i)", "    import std.exception : assertThrown;\n"
                                      "    assertThrown!Exception(candidate([1L], 5L));\n"
                                      "    assert(candidate([1L, 2L], 1L) == 2L);\n")),
    Honest("what it prints, from a module constructor too",
           "{\n    import std.stdio : stdout, writeln;\n    writeln(\"adding\");\n    stdout.flush();\n"
           "    return x + y;\n}\nstatic this() {\n    import std.stdio : writeln;\n    writeln(\"starting\");\n}",
           body(WRONG.strip()), ADD),
    Honest("BigInt, every integer width, a dchar, a wstring, a bool",
           body("return x * x + u + b + (c == '\u4e2d' ? 1 : 0) + w.length + (f ? 1 : 0) + s[1];"),
           body("return x * x;"),
           problem("BigInt big(BigInt x, ulong u, byte b, dchar c, wstring w, bool f, short[2] s)",
                   '    assert(candidate(BigInt("123456789012345678901234567890"), ulong.max, byte.min, \'\u4e2d\', '
                   '"h\u00e9"w, true, [short.min, short.max]) == '
                   'BigInt("15241578753238836750495351562536198787520351943948728636358"));\n',
                   IMPORTS + "import std.bigint;\n")),
    Honest("no arguments, an associative array of doubles", body('return ["a": -0.0, "b": double.nan];'),
           body('return ["a": 0.0, "b": double.nan];'),
           problem("double[string] pair_of()", '    auto r = candidate();\n'
                   '    assert(r.length == 2 && signbit(r["a"]) && isNaN(r["b"]));\n')),
]
# a struct of the prompt's: no codec reads it into the tests' own type
STRUCT = function_style("struct", "d", IMPORTS + "struct S { long v; }\nS wrap(long x) \n", body("return S(x);"),
                        "unittest\n{\n    assert(wrap(1L) == S(1));\n}\nvoid main(){}", stop_tokens=STOPS)
ROWS = [case for case in multipl_e_cases() if case.language == "d"]


@pytest.fixture(scope="module")
def results(server_address: str) -> dict[str, reward_pb2.ScoreResult]:
    rows = [function_style(f"{kind}/{case.id}", case.language, case.prompt, completion, case.tests,
                           stop_tokens=case.stop_tokens)
            for case in ROWS for kind, completion in (("right", case.right), ("wrong", case.wrong))]
    return score_cases(server_address, "d", HACKS, HELD, HONEST, [STRUCT, *rows])


globals().update(case_tests(HACKS, held=HELD, honest=HONEST))


def test_a_type_of_the_prompts_is_not_the_programs_fault(results) -> None:
    assert verdict_name(results["struct"]) == "INFRA_UNSUPPORTED_TEST", results["struct"]


@pytest.mark.parametrize("case", ROWS, ids=[case.id for case in ROWS])
def test_multipl_e_rows_keep_their_verdicts(case, results) -> None:
    assert verdict_name(results[f"right/{case.id}"]) == "PASS", results[f"right/{case.id}"]
    assert verdict_name(results[f"wrong/{case.id}"]) == "RUNTIME_ERROR", results[f"wrong/{case.id}"]
