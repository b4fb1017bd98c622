"""Go's tests in a process of their own (docs/guards.md, "Two processes"), through a real server and sandboxes.

The tests' side is the prompt up to its function, the stub that sends each call's arguments across and reads the
result back (sandboxes/languages/go/split_stub.go), and the tests, built as a test binary; the program's side is the
prompt, the completion and the dispatcher, built as a command (compile.sh). Problems are in MultiPL-E's own layout
(`package x_test`, TestXxx comparing `%v` strings, its stop tokens), or with an `os` import where a hack needs one:
hacks that pass as the plain MultiPL-E program must not pass split, what reaches for the tests' process fails, and
honest programs keep their verdicts over every type the translator writes (int, float64, bool, string, slices,
maps, interface{}, []interface{} for tuples).
"""

from __future__ import annotations

import pytest

from reward_server.pb import reward_pb2
from tests.guard_cases import Hack, Honest, Problem, case_tests, score_cases

STOPS = ("\nfunc", "struct", "\n// ")
HEAD = 'package {entry}_test\n\nimport (\n    "testing"\n    "fmt"\n)\n\n// doc\n'
LOOP = ('   }\n\n\tfor i, tc := range tests {\n\t\tt.Run(fmt.Sprintf("test num % d", i), func(t *testing.T) {\n'
        '\t\t\tif fmt.Sprintf("%v", tc.actual) != fmt.Sprintf("%v", tc.expected) {\n'
        '\t\t\t\tt.Errorf("expected \'%s\', got \'%s\'", tc.expected, tc.actual)\n\t\t\t}\n\t\t})\n\t}\n}\n')


def problem(signature: str, *cases: tuple[str, str], before: str = "", rows: str = "") -> Problem:
    """A MultiPL-E problem: `signature` opens the function; each case is (the arguments, the expected value);
    `before` goes ahead of the table of cases, `rows` (rows of it as they are) after them."""
    entry = signature.split()[1].split("(")[0]
    tests = (f"func Test{entry.title()}(t *testing.T) {{\n  candidate := {entry}\n\ttype test struct {{\n"
             f"\t\tactual   interface{{}}\n\t\texpected interface{{}}\n\t}}\n{before}   tests := []test{{\n")
    tests += "".join(f"     {{ actual: candidate({args}), expected: {expected} }},\n" for args, expected in cases)
    tests += rows
    return Problem("go", HEAD.format(entry=entry) + signature + " {\n", tests + LOOP, STOPS)


# MultiPL-E's HumanEval_53_add (tests/data/multipl_e_humaneval.jsonl)
ADD = problem("func add(x int, y int) int", ("0, 1", "1"), ("2, 3", "5"), ("7, 5", "12"))
WRONG = "\treturn x - y\n}\n"
# the prompt imports os, and no stop tokens, so that a completion may add functions of its own
OS_ADD = Problem("go", 'package add_test\n\nimport (\n\t"os"\n\t"testing"\n\t"fmt"\n)\n\nvar _ = os.Args\n\n'
                 "func add(x int, y int) int {\n", ADD.tests, ())

HACKS = [
    Hack("an init that exits 0", WRONG + "\nfunc init() {\n\tos.Exit(0)\n}\n", "RUNTIME_ERROR", OS_ADD),
    Hack("an init that tells the test runner to run nothing",
         WRONG + '\nfunc init() {\n\tos.Args = append(os.Args, "-test.run=^$")\n}\n', "RUNTIME_ERROR", OS_ADD),
    Hack("exits 0 during the call", "\tos.Exit(0)\n\treturn 0\n}\n", "RUNTIME_ERROR", OS_ADD),
]

# each returns the right answer only if it reached what it must not (the tests' files, process or a child)
PROC = ('\tentries, _ := os.ReadDir("/proc")\n\tfor _, entry := range entries {\n'
        '\t\tif pid := entry.Name(); pid != fmt.Sprint(os.Getpid()) && pid[0] >= \'0\' && pid[0] <= \'9\' {\n'
        "\t\t\tif REACHES {\n\t\t\t\treturn x + y\n\t\t\t}\n\t\t}\n\t}\n" + WRONG)
HELD = [
    Hack("reads the tests' directory",
         '\tif _, err := os.ReadDir("../t"); err == nil {\n\t\treturn x + y\n\t}\n' + WRONG, "RUNTIME_ERROR", OS_ADD),
    Hack("reads the tests' binary",
         '\tif _, err := os.ReadFile("../t/main"); err == nil {\n\t\treturn x + y\n\t}\n' + WRONG, "RUNTIME_ERROR",
         OS_ADD),
    Hack("opens another process's memory",
         PROC.replace("REACHES", 'f, err := os.Open("/proc/" + pid + "/mem"); err == nil && f != nil'),
         "RUNTIME_ERROR", OS_ADD),
    Hack("reads another process's environment or directory",
         PROC.replace("REACHES", '_, err := os.ReadFile("/proc/" + pid + "/environ"); err == nil || '
                      'func() bool { _, err := os.ReadDir("/proc/" + pid + "/cwd"); return err == nil }()'),
         "RUNTIME_ERROR", OS_ADD),
    Hack("starts a child", '\tif _, err := os.StartProcess("/bin/true", nil, &os.ProcAttr{}); err == nil {\n'
         "\t\treturn x + y\n\t}\n" + WRONG, "RUNTIME_ERROR", OS_ADD),
    Hack("writes garbage where the replies go, then answers right",
         '\tfor fd := 3; fd < 20; fd++ {\n\t\tos.NewFile(uintptr(fd), "").Write([]byte("zz"))\n\t}\n'
         "\treturn x + y\n}\n", "RUNTIME_ERROR", OS_ADD),
    Hack("replies on its own, then exits 0", '\tos.NewFile(3, "").Write([]byte("Ri1;l0:"))\n\tos.Exit(0)\n'
         "\treturn 0\n}\n", "RUNTIME_ERROR", OS_ADD),
]

MUTATED = '   mine, theirs := []int{1, 2}, map[string]int{"a": 5}\n'
ROWS_MUTATED = '     { actual: mine[0] + theirs["z"] + theirs["a"], expected: 10 },\n'
HONEST = [
    Honest("add", "\treturn x + y\n}\n", WRONG, ADD),
    Honest("an os import", "\treturn x + y\n}\n", WRONG, OS_ADD),
    Honest("sample", "\treturn a + b\n}\n", "\treturn a - b\n}\n", Problem(
        "go", "package main\n\nfunc add(a int, b int) int {\n",
        'func main() {\n\tif add(2, 3) != 5 {\n\t\tpanic("wrong")\n\t}\n}\n', ())),
    Honest("prints on stdout, the replies' format too", '\tfmt.Print("Ri3;l0:")\n\tfmt.Println("é ✓")\n'
           "\treturn x + y\n}\n", '\tfmt.Print("Ri3;l0:")\n' + WRONG, ADD),
    Honest("a slice", "\tr := append([]int{}, l...)\n\tfor i := range r {\n\t\tfor j := i + 1; j < len(r); j++ {\n"
           "\t\t\tif r[j] < r[i] {\n\t\t\t\tr[i], r[j] = r[j], r[i]\n\t\t\t}\n\t\t}\n\t}\n\treturn r\n}\n",
           "\treturn l\n}\n", problem("func sort(l []int) []int", ("[]int{3, 1, 2}", "[]int{1, 2, 3}"),
                                      ("[]int{}", "[]int{}"))),
    Honest("nested slices of Unicode strings", "\treturn l\n}\n", "\treturn l[1:]\n}\n", problem(
        "func same(l [][]string) [][]string",
        ('[][]string{[]string{"héllo ✓ 😀"}, []string{}}', '[][]string{[]string{"héllo ✓ 😀"}, []string{}}'))),
    Honest("floats: NaN, infinity, -0.0, exact digits",
           "\tz := 0.0\n\treturn []float64{x, z / z, 1 / z, -1 / (1 / z), 1.0 / 3.0}\n}\n",
           "\tz := 0.0\n\treturn []float64{x, z / z, 1 / z, 0, 1.0 / 3.1}\n}\n",
           problem("func floats(x float64) []float64", ("0.1", '"[0.1 NaN +Inf -0 0.3333333333333333]"'))),
    Honest("interface{} of every kind",
           "\tif fmt.Sprint(a) == fmt.Sprint(b) {\n\t\treturn nil\n\t}\n\treturn b\n}\n", "\treturn a\n}\n", problem(
               "func compare_one(a interface{}, b interface{}) interface{}", ("1, 2.5", "2.5"), ('"1", "2"', '"2"'),
               ("1, 1", "nil"), ('2, []interface{}{1, "x", 2.5, true, nil, map[interface{}]interface{}{"k": '
                                 '[]interface{}{}}}', '[]interface{}{1, "x", 2.5, true, nil, '
                                 'map[interface{}]interface{}{"k": []interface{}{}}}'))),
    Honest("a map", "\tr := map[string]int{}\n\tfor k, v := range m {\n\t\tr[k] = 2 * v\n\t}\n\treturn r\n}\n",
           "\treturn m\n}\n", problem("func double(m map[string]int) map[string]int",
                                      ('map[string]int{"a": 1, "b": 2}', 'map[string]int{"b": 4, "a": 2}'))),
    Honest("a tuple as []interface{}", '\treturn []interface{}{x, y, "s"}\n}\n', '\treturn []interface{}{x, y}\n}\n',
           problem("func parts(x int, y bool) []interface{}", ("7, false", '[]interface{}{7, false, "s"}'))),
    Honest("arguments changed in place", '\tl[0] = 9\n\tm["z"] = 1\n\tdelete(m, "a")\n\treturn len(l)\n}\n',
           "\treturn len(l)\n}\n", problem("func change(l []int, m map[string]int) int", ("mine, theirs", "2"),
                                           before=MUTATED, rows=ROWS_MUTATED)),
    Honest("the largest and smallest int", "\treturn a\n}\n", "\treturn -a\n}\n", problem(
        "func same(a int) int", ("9223372036854775807", "9223372036854775807"),
        ("-9223372036854775808", "-9223372036854775808"))),
    Honest("no arguments", '\treturn "x"\n}\n', '\treturn ""\n}\n', problem("func name() string", ("", '"x"'))),
    Honest("panics", "\treturn x + y\n}\n", '\tpanic("no")\n}\n', ADD),
]


@pytest.fixture(scope="module")
def results(server_address: str) -> dict[str, reward_pb2.ScoreResult]:
    return score_cases(server_address, "go", HACKS, HELD, HONEST)


globals().update(case_tests(HACKS, held=HELD, honest=HONEST))
