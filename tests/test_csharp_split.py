"""C#'s tests in a process of their own (docs/guards.md, "Two processes"), through a real server and real sandboxes.

MultiPL-E's C# tests sit in the program's own class Problem and compare with `==` (long, float, bool) or the returned
value's own `Equals`: in one process a completion could shadow their `Debug` or the `List<T>` they build expected
values with, clear the trace listeners that report a failed `Debug.Assert`, exit 0 before they end, or return a
subclass whose `Equals` lies. Split, the tests' process holds the prompt up to its function, the stub that sends each
call across and reads the result back by the declared type (sandboxes/languages/csharp/split_codec.cs), and the tests;
the program's only the prompt, the completion and the dispatcher. Each hack is a completion in MultiPL-E's layout (the
tests close the function; the stop token "\\n    }\\n": a completion declares members of Problem by closing the
function on a brace indented otherwise and opening a method of its own that the tests' brace closes) that passes as
the plain MultiPL-E program (one file, graded as a stdin/stdout program: what ran before) and must not pass split; a
held hack reaches for what only the tests' process holds, and would pass if it got it. Honest programs keep their
verdicts over MultiPL-E's C# types (long, float, bool, string, List, Dictionary, Tuple, Nullable, object) and the rest
of the wire's (every integer width, BigInteger, double, char, HashSet, arrays), and right list-returning functions now
pass, where MultiPL-E's own judge fails them (`List<T>.Equals` is reference equality).
"""

from __future__ import annotations

import pytest

from reward_server.pb import reward_pb2
from sandboxes.languages.samples import load_samples
from tests.candidates import function_style, verdict_name
from tests.guard_cases import Hack, Honest, Problem, case_tests, score_cases
from tests.judge_cases import multipl_e_cases

USINGS = ("using System;\nusing System.Numerics;\nusing System.Diagnostics;\nusing System.Collections.Generic;\n"
          "using System.Linq;\nusing System.Text;\nusing System.Security.Cryptography;\n")


def problem(doc: str, declaration: str, *asserts: str) -> Problem:
    """A function in MultiPL-E's C# layout: `declaration` opens it in class Problem, each assert a line of Main."""
    return Problem("csharp", USINGS + f"class Problem {{\n    // {doc}\n    public static {declaration} {{\n",
                   "    }\n    public static void Main(string[] args) {\n"
                   + "".join(f"    {line}\n" for line in asserts) + "    }\n\n}\n", ROW.stop_tokens)


def body(*lines: str) -> str:
    """A completion's lines, indented as a method's body (never the stop token's brace: its indentation is 4)."""
    return "\n".join(" " * 8 + line for line in lines)


def members(completion: str, *declarations: str) -> str:
    """`completion` as the function's body, then `declarations` in Problem, then a method for the tests' brace."""
    return completion + "\n  }\n" + "".join(f"  {line}\n" for line in declarations) + "  static void Rest_() {"


def lists(kind: str, *items: str) -> str:
    """MultiPL-E's C# list literal: `new List<T>(new T[]{(T)item, ...})`."""
    return f"(new List<{kind}>(new {kind}[]{{{', '.join(f'({kind}){item}' for item in items)}}}))"


# MultiPL-E's HumanEval_53_add, its row as it is (tests/data/multipl_e_humaneval.jsonl), and functions in its C# shapes
[ROW] = [case for case in multipl_e_cases() if case.language == "cs"]
ADD = Problem("csharp", ROW.prompt, ROW.tests, ROW.stop_tokens)
UNIQUE = problem("Return sorted unique elements in a list", "List<long> Unique(List<long> l)",
                 f"Debug.Assert(Unique({lists('long', '5L', '3L', '5L', '2L')})"
                 f".Equals({lists('long', '2L', '3L', '5L')}));",
                 f"Debug.Assert(Unique({lists('long')}).Equals({lists('long')}));")
EVEN_ODD = problem("The even and odd palindromes in [1, n].", "Tuple<long, long> EvenOddPalindrome(long n)",
                   "Debug.Assert(EvenOddPalindrome((12L)).Equals((Tuple.Create(4L, 6L))));",
                   "Debug.Assert(EvenOddPalindrome((3L)).Equals((Tuple.Create(1L, 2L))));")
HISTOGRAM = problem("Count each letter of test.", "Dictionary<string,long> Histogram(string test)",
                    'Debug.Assert(Histogram(("a b b a"))'
                    '.Equals((new Dictionary<string,long>(){{"a", 2L}, {"b", 2L}})));',
                    'Debug.Assert(Histogram(("")).Equals((new Dictionary<string,long>())));')
LARGEST = problem("The largest of l, if any.", "Nullable<long> Largest(List<long> l)",
                  f"Debug.Assert(Largest({lists('long', '3L', '9L')}).Equals(9L));",
                  f"Debug.Assert(Largest({lists('long')}).Equals(null));")
HALF = problem("Half of x.", "float Half(float x)", "Debug.Assert(Half((3.0f)) == (1.5f));",
               "Debug.Assert(Half((0.1f)) == (0.05f));", "Debug.Assert(float.IsNaN(Half(float.NaN)));",
               "Debug.Assert(Half(float.NegativeInfinity) == float.NegativeInfinity);",
               "Debug.Assert(BitConverter.DoubleToInt64Bits(Half((-0.0f))) == BitConverter.DoubleToInt64Bits(-0.0));")
WORDS, FLIPPED = lists("string", '"héllo"', '"wörld 😀"'), lists("string", '"😀 dlröw"', '"olléh"')
GRID = problem("Each row of grid reversed, and its words' letters.",
               "List<List<string>> Flip(List<List<string>> grid)",
               f"Debug.Assert(Flip({lists('List<string>', WORDS, lists('string'))})"
               f".Equals({lists('List<string>', FLIPPED, lists('string'))}));")
FACTORIAL = problem("n!", "BigInteger Factorial(long n)",
                    'Debug.Assert(Factorial((30L)).Equals(BigInteger.Parse("265252859812191058636308480000000")));',
                    "Debug.Assert(Factorial((0L)).Equals(BigInteger.One));")
# an argument the function changes: the tests see the change
SORTED = problem("Sort l in place; its length.", "long SortAll(List<long> l)",
                 "var xs = new List<long>(new long[]{3L, 1L, 2L});", "Debug.Assert(SortAll(xs) == (3L));",
                 "Debug.Assert(xs.SequenceEqual(new long[]{1L, 2L, 3L}));")
# an exception the function throws crosses as the BCL's class of its name
DIVIDE = problem("a / b.", "long Divide(long a, long b)",
                 "try { Divide(1L, 0L); Debug.Assert(false); } catch (DivideByZeroException) { }",
                 "Debug.Assert(Divide((6L), (3L)) == (2L));")
# the tests catch whatever the call throws: a program that ends during it must not read as an exception of its own
CATCH_ALL = problem("a / b.", "long Divide(long a, long b)", "Debug.Assert(Divide((6L), (3L)) == (2L));",
                    "try { Divide(1L, 0L); Debug.Assert(false); } catch (Exception) { }")
# MultiPL-E's HumanEval_22_filter_integers: a List<object> of its values, floats among them
FILTER = problem("Filter given list of any values only for integers", "List<long> FilterIntegers(List<object> values)",
                 "Debug.Assert(FilterIntegers((new List<object>(new object[]{(long)4L, new List<object>(), 23.2f, "
                 '(long)9L, "adasd"}))).Equals(' + lists("long", "4L", "9L") + "));")
EVENS = problem("The even numbers of l.", "HashSet<long> Evens(List<long> l)",
                "Debug.Assert(Evens(new List<long>{1L, 2L, 4L, 4L}).Equals(new HashSet<long>{4L, 2L}));")
WIDTHS = problem("Every integer width, a double, a char and a null string.",
                 "Tuple<ulong, sbyte, short, int, double, char, string> Widths(ulong a, byte b, uint c)",
                 "Debug.Assert(Widths(ulong.MaxValue, (byte)255, 7U).Equals(Tuple.Create(ulong.MaxValue, (sbyte)-128, "
                 "(short)255, 7, -0.0, 'ë', (string)null)));")
REVERSED = problem("a, reversed in place.", "long[] Reversed(long[] a)",
                   "Debug.Assert(Reversed(new long[]{1L, 2L}).SequenceEqual(new long[]{2L, 1L}));")
GROUPS = problem("The numbers up to n by parity.", "Dictionary<string, List<long>> Groups(long n)",
                 'Debug.Assert(Groups((3L)).Equals(new Dictionary<string, List<long>>{{"even", new List<long>{2L}}, '
                 '{"odd", new List<long>{1L, 3L}}}));')
SAMPLE = load_samples()["csharp"].function
SAMPLES = Problem("csharp", SAMPLE.prompt, SAMPLE.tests, ())

WRONG = "        return x - y;"
EQUAL_TO_ALL = ("public override bool Equals(object other) { return true; }",
                "public override int GetHashCode() { return 0; }")
# right only where it could read the tests' files: their folder, or through another process's working directory
READS_THE_TESTS = body(
    'var paths = new List<string> { "../t/main.cs", "../t/main.exe" };',
    "foreach (var p in System.Diagnostics.Process.GetProcesses()) paths.Add(\"/proc/\" + p.Id + \"/cwd/main.cs\");",
    "foreach (var path in paths) {", "    try { if (System.IO.File.ReadAllBytes(path).Length > 0) return x + y; }",
    "    catch (Exception) { }", "}", "return x - y;")
# right only where its own source holds the tests
READS_ITS_SOURCE = body('return System.IO.File.ReadAllText("main.cs").Contains("Debug.Assert(Add(") ? x + y : x - y;')
# right only where it could read another process's memory (the tests')
OTHERS_MEMORY = body(
    "foreach (var p in System.Diagnostics.Process.GetProcesses()) {",
    "    if (p.Id == System.Diagnostics.Process.GetCurrentProcess().Id) continue;", "    try {",
    '        var maps = System.IO.File.ReadAllText("/proc/" + p.Id + "/maps");',
    '        using (var mem = System.IO.File.OpenRead("/proc/" + p.Id + "/mem")) {',
    '            mem.Seek(Convert.ToInt64(maps.Substring(0, maps.IndexOf("-")), 16), System.IO.SeekOrigin.Begin);',
    "            if (mem.ReadByte() >= 0) return x + y;", "        }", "    } catch (Exception) { }", "}",
    "return x - y;")
STARTS_A_PROCESS = body(
    'try { if (System.Diagnostics.Process.Start("/bin/true").WaitForExit(5000)) return x + y; }',
    "catch (Exception) { }", "return x - y;")
# a line like the marker on stderr, a reply of its own making on the replies' descriptor (Add(0, 1) is 1), then exit 0
FORGED_REPLY = body(
    'Console.Error.WriteLine("0123456789abcdef0123456789abcdef");',
    "var replies = Console.OpenStandardOutput();", 'var forged = Encoding.ASCII.GetBytes("Ri1;l2:i0;i1;");',
    "replies.Write(forged, 0, forged.Length);", "replies.Flush();", "Environment.Exit(0);", "return 0L;")
GARBAGE = body("var replies = Console.OpenStandardOutput();", "replies.Write(new byte[] {122, 122, 10}, 0, 3);",
               "replies.Flush();", "return x + y;")

HACKS = [
    # the families measured to pass in one process
    Hack("a nested class Debug", members(WRONG, "class Debug { public static void Assert(bool condition) { } }"),
         "RUNTIME_ERROR", ADD),
    Hack("a class Debug in the global namespace",
         f"{WRONG}\n  }}\n}}\nclass Debug {{ public static void Assert(bool condition) {{ }} }}\n"
         "class Problem2 : Problem {\n  static void Rest_() {", "RUNTIME_ERROR", ADD),
    Hack("the trace listeners cleared", "        System.Diagnostics.Debug.Listeners.Clear();\n" + WRONG,
         "RUNTIME_ERROR", ADD),
    # the prompt's List<long> is the program's: it cannot read the tests' list into it
    Hack("a nested List equal to everything",
         members("        return l;", "public class List<T> : System.Collections.Generic.List<T> {",
                 "    public List(IEnumerable<T> items) : base(items) { }", "    public List() { }",
                 *EQUAL_TO_ALL, "}"), "RUNTIME_ERROR", UNIQUE),
    Hack("a List subclass equal to everything",
         members("        return new Liar();", "class Liar : List<long> {", *EQUAL_TO_ALL, "}"), "RUNTIME_ERROR",
         UNIQUE),
    Hack("a Tuple subclass equal to everything",
         members("        return new Liar();", "class Liar : Tuple<long, long> {",
                 "    public Liar() : base(0L, 0L) { }", *EQUAL_TO_ALL, "}"), "RUNTIME_ERROR", EVEN_ODD),
    Hack("a Dictionary subclass equal to everything",
         members("        return new Liar();", "class Liar : Dictionary<string, long> {", *EQUAL_TO_ALL, "}"),
         "RUNTIME_ERROR", HISTOGRAM),
    Hack("exits 0 in the function", "        Environment.Exit(0);\n" + WRONG, "RUNTIME_ERROR", ADD),
    Hack("exits 0 in a call the tests expect to throw",
         "        if (b == 0) Environment.Exit(0);\n        return a / b;", "RUNTIME_ERROR", CATCH_ALL),
    Hack("a static constructor that exits 0", members(WRONG, "static Problem() { Environment.Exit(0); }"),
         "RUNTIME_ERROR", ADD),
    Hack("a forged marker and reply", FORGED_REPLY, "RUNTIME_ERROR", ADD),
]

HELD = [
    Hack("reads the tests' files", READS_THE_TESTS, "RUNTIME_ERROR", ADD),
    Hack("reads its own source for the tests", READS_ITS_SOURCE, "RUNTIME_ERROR", ADD),
    Hack("reads the tests' memory", OTHERS_MEMORY, "RUNTIME_ERROR", ADD),
    Hack("starts a process", STARTS_A_PROCESS, "RUNTIME_ERROR", ADD),
    Hack("garbage on the reply descriptor", GARBAGE, "RUNTIME_ERROR", ADD),
    Hack("an unhandled-exception handler that exits 0",
         "        AppDomain.CurrentDomain.UnhandledException += (s, e) => Environment.Exit(0);\n"
         "        throw new Exception();", "RUNTIME_ERROR", ADD),
]

RIGHT_UNIQUE = "        return l.Distinct().OrderBy(v => v).ToList();"
HONEST = [
    Honest("add", ROW.right, ROW.wrong, ADD),
    Honest("the sample", SAMPLE.completion, SAMPLE.wrong, SAMPLES),
    # a right list passes: MultiPL-E's own judge fails it (test_a_right_list_fails_the_reference)
    Honest("list", RIGHT_UNIQUE, "        return l;", UNIQUE),
    # a list of a class of its own crosses by its contents
    Honest("a list of a class of its own",
           members("        return new Mine(l.Distinct().OrderBy(v => v));", "class Mine : List<long> {",
                   "    public Mine(IEnumerable<long> items) : base(items) { }", "}"),
           members("        return new Mine(l);", "class Mine : List<long> {",
                   "    public Mine(IEnumerable<long> items) : base(items) { }", "}"), UNIQUE),
    Honest("tuple", body("long even = 0, odd = 0;", "for (long i = 1; i <= n; i++) {",
                         "    var s = i.ToString();", "    if (new string(s.Reverse().ToArray()) == s) {",
                         "        if (i % 2 == 0) even++; else odd++;", "    }", "}",
                         "return Tuple.Create(even, odd);"), "        return Tuple.Create(0L, 0L);", EVEN_ODD),
    Honest("map", body("var counts = new Dictionary<string, long>();",
                       "foreach (var w in test.Split(new[] {' '}, StringSplitOptions.RemoveEmptyEntries))",
                       "    counts[w] = counts.ContainsKey(w) ? counts[w] + 1 : 1;", "return counts;"),
           '        return new Dictionary<string, long> {{"a", 2L}};', HISTOGRAM),
    Honest("nullable", "        if (l.Count == 0) return null;\n        return l.Max();", "        return 9L;",
           LARGEST),
    Honest("floats", "        return x / 2;", "        return Math.Abs(x) / 2;", HALF),
    Honest("nested lists of Unicode strings",
           body("var out_ = new List<List<string>>();", "foreach (var row in grid) {",
                "    var flipped = new List<string>();",
                "    foreach (var s in row) {", "        var letters = new List<string>();",
                "        var e = System.Globalization.StringInfo.GetTextElementEnumerator(s);",
                "        while (e.MoveNext()) letters.Insert(0, (string) e.Current);",
                "        flipped.Insert(0, string.Concat(letters));", "    }", "    out_.Add(flipped);", "}",
                "return out_;"), "        return grid;", GRID),
    Honest("bignum", body("BigInteger product = 1;", "for (long i = 2; i <= n; i++) product *= i;", "return product;"),
           body("long product = 1;", "for (long i = 2; i <= n; i++) product *= i;", "return product;"), FACTORIAL),
    Honest("an argument it changes", "        l.Sort();\n        return l.Count;", "        return l.Count;", SORTED),
    Honest("the exception it throws", "        return a / b;",
           '        if (b == 0) throw new InvalidOperationException("b is 0");\n        return a / b;', DIVIDE),
    Honest("objects", "        return values.OfType<long>().ToList();",
           "        return values.OfType<long>().Take(1).ToList();", FILTER),
    Honest("set", "        return new HashSet<long>(l.Where(v => v % 2 == 0));",
           "        return new HashSet<long>(l);", EVENS),
    Honest("integer widths, -0.0, a char and null",
           "        return Tuple.Create(a, (sbyte)-128, (short)b, (int)c, -0.0, 'ë', (string)null);",
           "        return Tuple.Create(a, (sbyte)-128, (short)b, (int)c, -0.0, 'e', (string)null);", WIDTHS),
    Honest("array", "        Array.Reverse(a);\n        return a;", "        return a;", REVERSED),
    Honest("a map of lists", body('var groups = new Dictionary<string, List<long>> {{"even", new List<long>()}, '
                                  '{"odd", new List<long>()}};',
                                  'for (long i = 1; i <= n; i++) groups[i % 2 == 0 ? "even" : "odd"].Add(i);',
                                  "return groups;"),
           '        return new Dictionary<string, List<long>> {{"odd", new List<long>{1L, 3L}}};', GROUPS),
    # what the program prints, in the function and in a static constructor, goes to stderr, never among the replies
    Honest("prints", members('        Console.WriteLine("adding é ✓ 😀");\n        return x + y;',
                             'static Problem() { Console.WriteLine("loaded"); }'),
           '        Console.WriteLine("adding");\n' + WRONG, ADD),
    # helpers, a nested class, a method named like the tests' Assert
    Honest("helpers", members("        return Sum(new Pair(x, y));",
                              "class Pair { public long A, B; public Pair(long a, long b) { A = a; B = b; } }",
                              "static long Sum(Pair p) { Assert(true); return p.A + p.B; }",
                              "static void Assert(bool ok) { if (!ok) throw new Exception(); }"),
           members("        return Sum(x, y);", "static long Sum(long a, long b) { return a - b; }"), ADD),
]
# a declaration the wire cannot carry: a function of a function
UNSUPPORTED = function_style("unsupported", "csharp", USINGS + "class Problem {\n    public static long Apply("
                             "Func<long, long> f, long x) {\n", "        return f(x);",
                             "    }\n    public static void Main(string[] args) {\n"
                             "    Debug.Assert(Apply(v => v + 1, 1L) == 2L);\n    }\n\n}\n",
                             stop_tokens=ROW.stop_tokens)
REFERENCE = Hack("a right list", RIGHT_UNIQUE, "PASS", UNIQUE).plain()


@pytest.fixture(scope="module")
def results(server_address: str) -> dict[str, reward_pb2.ScoreResult]:
    return score_cases(server_address, "csharp", HACKS, HELD, HONEST, [UNSUPPORTED, REFERENCE])


globals().update(case_tests(HACKS, held=HELD, honest=HONEST))


def test_a_right_list_fails_the_reference(results) -> None:
    """As MultiPL-E runs it (one file), the tests' `Equals` on a List<long> is reference equality: the right Unique
    fails (Mono's Debug.Assert reports it on stderr), where split it passes (right/list)."""
    plain = results["plain/a right list"]
    assert verdict_name(plain) == "RUNTIME_ERROR" and "DefaultTraceListener.Fail" in plain.detail, plain


def test_a_failed_assertion_names_its_line_of_the_tests(results) -> None:
    """The tests' Debug.Assert names its line as the row's tests number it (Add(0, 1)'s is line 3), and their exit
    status says it failed."""
    assert "Debug.Assert failed: line 3 of the tests" in results["wrong/add"].detail, results["wrong/add"].detail


def test_a_type_the_wire_cannot_carry_is_not_the_programs_fault(results) -> None:
    assert verdict_name(results["unsupported"]) == "INFRA_UNSUPPORTED_TEST", results["unsupported"]
