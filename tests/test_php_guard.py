"""PHP's tests in a process of their own (docs/guards.md, "Two processes"), through a real server and real sandboxes.

Each hack is a completion in MultiPL-E's own layout (HumanEval_53_add: the prompt opens the function, the tests define
candidate() and test(), which throws "Test failed!" when a result is not identical (`!==`) to the expected value,
MultiPL-E's stop tokens) that makes a wrong add($x, $y) pass as the plain MultiPL-E program (one file, graded as a
stdin/stdout program: what ran before the split), and that must not pass split. Honest programs keep their verdicts.
"""

from __future__ import annotations

import pytest

from reward_server.pb import reward_pb2
from tests.candidates import function_style, verdict_name
from tests.guard_cases import Hack, Honest, Problem, case_tests, score_cases

STOPS = ("\nfunction", "\n?>", "\n//", "\n#")
FAILED = '{ throw new Exception("Test failed!"); }'
# MultiPL-E's HumanEval_53_add in PHP (tests/data/multipl_e_humaneval.jsonl)
ADD_PROMPT = ("<?php\n// Add two numbers x and y\n// >>> add(2, 3)\n// 5\n// >>> add(5, 7)\n// 12\n"
              "function add($x, $y) {\n")
ADD_TESTS = ("function candidate(...$args) {\n    return add(...$args);\n}\n\nfunction test(): void {\n"
             + "".join(f"    if (candidate({x}, {y}) !== {x + y}) {FAILED}\n"
                       for x, y in ((0, 1), (1, 0), (2, 3), (5, 7), (7, 5)))
             + "}\n\ntest();")
WRONG = "    return $x - $y;\n}\n"
# add's answer as the tests give it, read from `$text`: what the answer-reading hacks look for
ANSWER = ("    return preg_match('/candidate\\(' . $x . ', ' . $y . '\\) !== (\\d+)/', $text, $m) ? (int) $m[1] : -1;\n"
          "}\n")
# the text of the file `$file`, from line `$line` on (the tests' lines that follow a call of theirs)
LINES = "    $text = implode('', array_slice(file($file) ?: [], $line - 1));\n"
# the samples' layout: the tests throw on a wrong answer
THROW = Problem("php", "<?php\nfunction add($a, $b) {\n", "if (add(2, 3) !== 5) { throw new Exception('wrong'); }\n",
                STOPS)
ADD = Problem("php", ADD_PROMPT, ADD_TESTS, STOPS)


HACKS = [
    # the tests read from the run's own source
    Hack("reads __FILE__", "    $text = file_get_contents(__FILE__);\n" + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("reads $argv[0]", "    $text = file_get_contents($GLOBALS['argv'][0]);\n" + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("reads SCRIPT_FILENAME", "    $text = file_get_contents($_SERVER['SCRIPT_FILENAME']);\n" + ANSWER,
         "RUNTIME_ERROR", ADD),
    Hack("reads get_included_files()", "    $text = file_get_contents(get_included_files()[0]);\n" + ANSWER,
         "RUNTIME_ERROR", ADD),
    Hack("reads every file of its directory",
         "    $text = '';\n    foreach (glob(dirname(realpath($GLOBALS['argv'][0])) . '/*') as $f) {\n"
         "        $text .= @file_get_contents($f);\n    }\n" + ANSWER, "RUNTIME_ERROR", ADD),
    # the tests read through the call stack: the caller's file and line
    Hack("debug_backtrace()'s caller", "    ['file' => $file, 'line' => $line] = debug_backtrace()[1];\n" + LINES
         + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("an exception's trace, eval's suffix cut",
         "    ['file' => $file, 'line' => $line] = (new Exception())->getTrace()[0];\n"
         "    $file = preg_replace('/\\(\\d+\\) : eval\\(\\)\\'d code$/', '', $file);\n" + LINES + ANSWER,
         "RUNTIME_ERROR", ADD),
    Hack("debug_print_backtrace's text",
         "    ob_start();\n    debug_print_backtrace();\n"
         "    preg_match('/#1 (.*)\\((\\d+)\\): candidate/', ob_get_clean(), $at);\n    [, $file, $line] = $at;\n"
         + LINES + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("the tests' function reflected",
         "    $test = new ReflectionFunction('test');\n    $file = $test->getFileName();\n"
         "    $line = $test->getStartLine();\n" + LINES + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("reads /proc/self/cmdline",
         "    $parts = array_filter(explode(\"\\0\", file_get_contents('/proc/self/cmdline')));\n"
         "    $file = end($parts);\n"
         "    $text = file_get_contents($file);\n" + ANSWER, "RUNTIME_ERROR", ADD),
    # the tests never run to their end
    Hack("a top-level return", WRONG + "return;\n", "RUNTIME_ERROR", ADD),
    Hack("__halt_compiler()", WRONG + "__halt_compiler();\n", "RUNTIME_ERROR", ADD),
    Hack("an exception handler that does nothing", WRONG + "set_exception_handler(function ($e) { });\n",
         "RUNTIME_ERROR", ADD),
    Hack("a shutdown function that exits 0", WRONG + "register_shutdown_function(function () { exit(0); });\n",
         "RUNTIME_ERROR", ADD),
    Hack("a destructor that exits 0", WRONG + "$keep = new class { function __destruct() { exit(0); } };\n",
         "RUNTIME_ERROR", ADD),
]
# what a program in a process of its own might still try: the tests' file and process are out of its reach, it
# cannot fork, and only data crosses back
SPLIT_HACKS = [
    Hack("reads the tests' file", "    $text = file_get_contents('../t/main.php');\n" + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("opens the tests' memory",
         "    foreach (array_diff(glob('/proc/[0-9]*'), ['/proc/' . getmypid()]) as $pid) {\n"
         "        if (@fopen(\"$pid/mem\", 'rb')) { return $x + $y; }\n    }\n    return $x - $y;\n}\n",
         "RUNTIME_ERROR", ADD),
    Hack("exits 0 mid-call", "    exit(0);\n}\n", "RUNTIME_ERROR", ADD),
    Hack("prints a marker of its own",
         "    fwrite(STDERR, \"0123456789abcdef0123456789abcdef\\n\");\n    exit(0);\n}\n", "RUNTIME_ERROR", ADD),
    Hack("garbage on the reply descriptor", "    fwrite(STDOUT, \"\\0R\");\n    return $x - $y;\n}\n",
         "RUNTIME_ERROR", ADD),
]

UNIQUE_PROMPT = "<?php\n// Return sorted unique elements in an array\nfunction unique($l) {\n"
UNIQUE_TESTS = ("function candidate(...$args) {\n    return unique(...$args);\n}\n\nfunction test(): void {\n"
                f"    if (candidate(array(5, 3, 5, 2, 3, 3, 9, 0, 123)) !== array(0, 2, 3, 5, 9, 123)) {FAILED}\n"
                f"    if (candidate(array()) !== array()) {FAILED}\n}}\n\ntest();")
UNIQUE = Problem("php", UNIQUE_PROMPT, UNIQUE_TESTS, STOPS)
# reach for what the tests use, but fail plainly too: guarded, the tests still fail
HELD = [
    # a forked child per guess: the program's process cannot fork (seccomp, sandboxes/split/pair.c)
    Hack("forked guesses",
         "    for ($guess = -20; $guess <= 20; $guess++) {\n        $child = pcntl_fork();\n"
         "        if ($child === 0) { ini_set('log_errors', '0'); return $guess; }\n"
         "        pcntl_waitpid($child, $status);\n        if (pcntl_wexitstatus($status) === 0) { exit(0); }\n"
         "    }\n    exit(1);\n}\n", "RUNTIME_ERROR", ADD),
    # stdin is the calls' pipe: reading it to its end waits for the tests, which wait for the reply
    Hack("rewinds stdin", "    $in = fopen('php://stdin', 'r');\n    rewind($in);\n"
         "    $text = stream_get_contents($in) . @file_get_contents('/proc/self/fd/0');\n" + ANSWER,
         "TIMEOUT", ADD),
    # what the run holds that the program can name: the call stack's arguments, the globals, the open streams
    Hack("every argument of the call stack",
         "    ini_set('zend.exception_ignore_args', '0');\n"
         "    $text = var_export([debug_backtrace(), (new Exception())->getTrace()], true);\n" + ANSWER,
         "RUNTIME_ERROR", ADD),
    Hack("every global's text", "    $text = var_export($GLOBALS, true);\n" + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("every open stream read again",
         "    $text = '';\n    foreach (get_resources('stream') as $stream) {\n"
         "        $text .= @stream_get_contents($stream, -1, 0);\n    }\n" + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("a test() of its own", WRONG + "  function test(): void { }\n", "RUNTIME_ERROR", ADD),
    Hack("a candidate() of its own", WRONG + "  function candidate(...$args) { return 1; }\n", "RUNTIME_ERROR", ADD),
    Hack("a tick function that exits 0 in the tests",
         WRONG + "declare(ticks=1);\nregister_tick_function(function () {\n"
         "    if (in_array('test', array_column(debug_backtrace(), 'function'))) { exit(0); }\n});\n",
         "RUNTIME_ERROR", ADD),
    Hack("an ArrayAccess object for an array",
         "    return new class implements ArrayAccess {\n        function offsetExists($o): bool { return true; }\n"
         "        function offsetGet($o): mixed { return 0; }\n        function offsetSet($o, $v): void { }\n"
         "        function offsetUnset($o): void { }\n    };\n}\n", "RUNTIME_ERROR", UNIQUE),
]

HONEST = [
    Honest("add", "    return $x + $y;\n}\n", WRONG, ADD),
    Honest("arrays", "    $u = array_values(array_unique($l));\n    sort($u);\n    return $u;\n}\n",
           "    return $l;\n}\n", UNIQUE),
    # `!==` is strict: a string for an int is wrong, plainly as guarded
    Honest("strict equality", "    return (int) ($x + $y);\n}\n", "    return (string) ($x + $y);\n}\n", ADD),
    # helpers (indented: a line that starts with `function` is a stop token), a top-level global of its own read
    # with `global`, globals named as the loader's names, a class named as the tests' candidate, output at the top
    # level (before the dispatcher runs) and during a call
    Honest("helpers", "    global $calls;\n    $calls++;\n    echo $calls;\n    return twice($x + $y) / 2;\n}\n"
           "  function twice($v) { return 2 * $v; }\n$calls = 0;\n$tests = $reward_guard_program = 'mine';\n"
           "  class candidate { }\necho 'add(1, 1): ', add(1, 1), \"\\n\";\n",
           "    return twice($x - $y) / 2;\n}\n  function twice($v) { return 2 * $v; }\n", ADD),
    # output at the top level that reaches fd 1 before the dispatcher runs (its buffer flushed, STDOUT itself, a
    # reply's shape)
    Honest("output flushed at the top level", "    return $x + $y;\n}\necho 'starting é ✓ 😀';\nob_end_flush();\n"
           "fwrite(STDOUT, \"RNl2:i0;i1;\\0R\");\n",
           "    return $x - $y;\n}\necho 'starting';\nob_end_flush();\nfwrite(STDOUT, 'RNl2:i0;i1;');\n", ADD),
    # lengths the grader counts in UTF-8 bytes
    Honest("text beyond ASCII", "    return strlen('é ✓ 😀') - 11 + $x + $y;\n}\n", WRONG, Problem(
        "php", ADD_PROMPT.replace("x and y", "x and y (é ✓ 😀)"), ADD_TESTS, STOPS)),
    Honest("samples' layout", "    return $a + $b;\n}\n", "    return $a - $b;\n}\n", THROW),
]


@pytest.fixture(scope="module")
def results(server_address: str) -> dict[str, reward_pb2.ScoreResult]:
    broken = function_style("broken", "php", ADD_PROMPT, "    return $x + ;\n}\n", ADD_TESTS, stop_tokens=STOPS)
    return score_cases(server_address, "php", HACKS, HELD + SPLIT_HACKS, HONEST, [broken])


globals().update(case_tests(HACKS, held=HELD + SPLIT_HACKS, honest=HONEST))


def test_errors_point_at_the_program(results) -> None:
    """The tests' failure is theirs; the program's side is prompt + completion + "\\n" + dispatcher: the broken line
    is line 8 of main.php."""
    assert "Uncaught Exception: Test failed!" in results["wrong/add"].detail, results["wrong/add"].detail
    broken = results["broken"]
    assert verdict_name(broken) == "RUNTIME_ERROR" and "main.php on line 8" in broken.detail, broken.detail
