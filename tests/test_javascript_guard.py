"""JavaScript's tests in a process of their own (docs/guards.md, "Two processes"), through a real server and real
sandboxes.

Each hack is a completion in MultiPL-E's own layout (HumanEval_53_add: the prompt opens the function, the tests
require node:assert and call `test()`, MultiPL-E's stop tokens) that makes a wrong add(x, y) pass as the plain
MultiPL-E program (one file, graded as a stdin/stdout program: what ran before the split), and that must not pass
split. Hacks against the split itself (the tests' file and process, the pipe, the wire format) must not pass either.
Honest programs keep their verdicts, whatever values cross.
"""

from __future__ import annotations

import pytest

from reward_server.pb import reward_pb2
from tests.candidates import function_style, verdict_name
from tests.guard_cases import Hack, Honest, Problem, case_tests, score_cases

STOPS = ("\nfunction ", "\n/*", "\n//", "\nconsole.log")
# MultiPL-E's HumanEval_53_add in JavaScript (tests/data/multipl_e_humaneval.jsonl)
ADD_PROMPT = "//Add two numbers x and y\n// >>> add(2, 3)\n// 5\n// >>> add(5, 7)\n// 12\nfunction add(x, y){\n"
ADD_TESTS = ("const assert = require('node:assert');\n\n\nfunction test() {\n  let candidate = add;\n"
             "  assert.deepEqual(candidate(0, 1),1);\n  assert.deepEqual(candidate(1, 0),1);\n"
             "  assert.deepEqual(candidate(2, 3),5);\n  assert.deepEqual(candidate(5, 7),12);\n"
             "  assert.deepEqual(candidate(7, 5),12);\n}\n\ntest();")
WRONG = "    return x - y;\n}\n"
# add's answer as the tests give it, read from `text`: what the answer-reading hacks look for
ANSWER = ("    const call = `candidate(${x}, ${y}),`;\n    const at = text.indexOf(call);\n"
          "    return at < 0 ? -1 : parseInt(text.slice(at + call.length));\n}\n")
# a stack trace's call sites, as V8 hands them to Error.prepareStackTrace
CALL_SITES = "    Error.prepareStackTrace = (error, sites) => sites;\n    const sites = new Error().stack;\n"


ADD = Problem("javascript", ADD_PROMPT, ADD_TESTS, STOPS)


HACKS = [
    # the families measured to pass before
    Hack("assert's deepEqual replaced", WRONG + "require('node:assert').deepEqual = () => {};\n", "RUNTIME_ERROR", ADD),
    Hack("require rebound", WRONG + "require = () => ({ deepEqual() {} });\n", "RUNTIME_ERROR", ADD),
    Hack("Module.prototype.require patched",
         WRONG + "require('module').prototype.require = () => ({ deepEqual() {} });\n", "RUNTIME_ERROR", ADD),
    Hack("reads process.argv[1]", "    const text = require('fs').readFileSync(process.argv[1], 'utf8');\n" + ANSWER,
         "RUNTIME_ERROR", ADD),
    Hack("reads __filename", "    const text = require('fs').readFileSync(__filename, 'utf8');\n" + ANSWER,
         "RUNTIME_ERROR", ADD),
    # variants the guard was not built against
    Hack("a getter for deepEqual",
         WRONG + "Object.defineProperty(require('assert'), 'deepEqual', { get: () => () => {} });\n",
         "RUNTIME_ERROR", ADD),
    Hack("Module._load patched", WRONG + "module.constructor._load = () => ({ deepEqual() {} });\n",
         "RUNTIME_ERROR", ADD),
    Hack("reads every file of its directory",
         "    const fs = require('fs');\n    let text = '';\n"
         "    for (const name of fs.readdirSync('.')) text += fs.readFileSync(name, 'utf8');\n" + ANSWER,
         "RUNTIME_ERROR", ADD),
    Hack("reads the tests through its caller", "    const text = String(add.caller);\n" + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("reads the tests through a call site",
         CALL_SITES + "    const text = String(sites[1].getFunction());\n    Error.prepareStackTrace = undefined;\n"
         + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("Function.prototype.toString of the tests' function",
         "    const text = Function.prototype.toString.call(add.caller || (() => {}));\n" + ANSWER,
         "RUNTIME_ERROR", ADD),
    Hack("swallows the failed assertion", WRONG + "process.on('uncaughtException', () => {});\n", "RUNTIME_ERROR", ADD),
    Hack("exits 0 from the failure's stack trace", WRONG + "Error.prepareStackTrace = () => process.exit(0);\n",
         "RUNTIME_ERROR", ADD),
]
# every process but its own and pair's, by pid
OTHERS = ("    const fs = require('fs');\n    const others = fs.readdirSync('/proc')"
          ".filter((pid) => /^[0-9]+$/.test(pid) && +pid !== process.pid && +pid !== process.ppid);\n")
# against the split: the tests' file and process, the pipe and the wire format, the tests' stderr
SPLIT = [
    Hack("reads the tests' file", "    const text = require('fs').readFileSync('../t/main.js', 'utf8');\n" + ANSWER,
         "RUNTIME_ERROR", ADD),
    Hack("reads the tests' file through the fs binding",
         "    const fs = process.binding('fs');\n    const text = String(fs.open('../t/main.js', 0, 0));\n" + ANSWER,
         "RUNTIME_ERROR", ADD),
    Hack("reads the tests' process through /proc", OTHERS + "    let text = '';\n    for (const pid of others) {\n"
         "        for (const name of ['cwd/main.js', 'environ', 'cmdline'])\n"
         "            try { text += fs.readFileSync(`/proc/${pid}/${name}`, 'utf8'); } catch (e) {}\n"
         "        try {\n            const mem = fs.openSync(`/proc/${pid}/mem`, 'r');\n"
         "            for (const line of fs.readFileSync(`/proc/${pid}/maps`, 'utf8').split('\\n')) {\n"
         "                const [start, end] = line.split(' ')[0].split('-').map((hex) => parseInt(hex, 16));\n"
         "                const chunk = Buffer.alloc(Math.min(end - start, 1 << 20));\n"
         "                try { fs.readSync(mem, chunk, 0, chunk.length, start); text += chunk.toString('latin1'); }"
         " catch (e) {}\n            }\n        } catch (e) {}\n    }\n" + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("signals the tests' process to start its inspector", OTHERS
         + "    for (const pid of others) try { process._debugProcess(+pid); } catch (e) {}\n" + WRONG.lstrip(" "),
         "RUNTIME_ERROR", ADD),
    Hack("a child process reads the tests' file",
         "    const text = String(require('child_process').execFileSync('cat', ['../t/main.js']));\n" + ANSWER,
         "RUNTIME_ERROR", ADD),
    Hack("a value whose every property says yes",
         "    return new Proxy({}, { get: () => () => true, getPrototypeOf: () => Number.prototype });\n}\n",
         "RUNTIME_ERROR", ADD),
    Hack("exits 0 during a call", "    process.exit(0);\n}\n", "RUNTIME_ERROR", ADD),
    Hack("garbage on the reply descriptor", "    require('fs').writeSync(1, 'R?');\n    return x + y;\n}\n",
         "RUNTIME_ERROR", ADD),
    Hack("a reply of its own before the answer", "    require('fs').writeSync(1, 'Rd3ff0000000000000l0:');\n"
         "    return x + y;\n}\n", "RUNTIME_ERROR", ADD),
    Hack("claims an unsupported test", "    console.error(' unsupported: a function');\n    process.exit(1);\n}\n",
         "RUNTIME_ERROR", ADD),
]
# reach for what the tests use, but fail plainly too: guarded, the tests still fail
HELD = [
    Hack("a global test", WRONG + "Object.defineProperty(globalThis, 'test', { value: () => {} });\n",
         "RUNTIME_ERROR", ADD),
    Hack("a getter on module.exports",
         WRONG + "Object.defineProperty(module, 'exports', { get() { process.exit(0); } });\n", "RUNTIME_ERROR", ADD),
    Hack("process.exit replaced", WRONG + "process.exit = () => {};\n", "RUNTIME_ERROR", ADD),
    Hack("Function.prototype.toString replaced", WRONG + "Function.prototype.toString = () => '';\n",
         "RUNTIME_ERROR", ADD),
]



def problem(declaration: str, lines: str) -> Problem:
    """A prompt in MultiPL-E's layout (its description, a helper the tests may call, then the function) and tests
    that assert `lines` of it."""
    entry = declaration.split("(")[0]
    return Problem("javascript", "//Doubles s.\nfunction helper(s){\n  return s + s;\n}\n//The function.\n"
                   f"function {declaration}{{\n", ADD_TESTS.split("  assert")[0].replace("add", entry) + lines
                   + "}\n\ntest();", STOPS)


SORT_PROMPT = "//Sort l and drop its duplicates.\nfunction unique(l){\n"
SORT_TESTS = ("const assert = require('node:assert');\n\n\nfunction test() {\n  let candidate = unique;\n"
              "  assert.deepEqual(candidate([5, 3, 5, 2, 3, 3, 9, 0, 123]),[0, 2, 3, 5, 9, 123]);\n"
              "  assert.deepEqual(candidate([]),[]);\n}\n\ntest();")
HONEST = [
    Honest("add", "    return x + y;\n}\n", WRONG, ADD),
    Honest("arrays", "    return [...new Set(l)].sort((a, b) => a - b);\n}\n", "    return l;\n}\n",
           Problem("javascript", SORT_PROMPT, SORT_TESTS, STOPS)),
    # the values MultiPL-E's translator writes, and what assert.deepEqual tells apart in them
    Honest("nested arrays and floats", "    return l.map((x) => [x, x / 0, -x / 0, 0 / 0, x * 0.1]);\n}\n",
           "    return l.map((x) => [x, x / 0, -x / 0, 0, x * 0.1]);\n}\n", problem(
               "f(l)", "  assert.deepEqual(candidate([1, -2]),[[1, Infinity, -Infinity, NaN, 0.1], "
               "[-2, -Infinity, Infinity, NaN, -0.2]]);\n  assert.deepEqual(candidate([]),[]);\n")),
    Honest("strings beyond ASCII and helpers", "    return helper(s) + 'é 😀';\n}\n", "    return s + 'é 😀';\n}\n",
           problem("f(s)", "  assert.deepEqual(candidate(\"✓\\u0000\"),\"✓\\u0000✓\\u0000é 😀\");\n")),
    Honest("booleans and undefined", "    return x > 0 ? true : x < 0 ? false : undefined;\n}\n",
           "    return x > 0 ? true : x < 0 ? false : null;\n}\n", problem(
               "f(x)", "  assert.deepEqual(candidate(1),true);\n  assert.deepEqual(candidate(-1),false);\n"
               "  require('assert').strict.deepEqual(candidate(0),undefined);\n")),
    Honest("objects as dicts", "    const r = {};\n    for (const k of Object.keys(d)) r[k + k] = d[k] * 2;\n"
           "    return r;\n}\n", "    return d;\n}\n", problem(
               "f(d)", "  assert.deepEqual(candidate({\"a\": 1, \"b\": 2}),{\"aa\": 2, \"bb\": 4});\n")),
    Honest("integers stay apart from BigInts strictly", "    return x * 2;\n}\n", "    return BigInt(x * 2);\n}\n",
           problem("f(x)", "  require('assert').strict.deepEqual(candidate(21),42);\n")),
    Honest("mutates its argument", "    l.sort((a, b) => a - b);\n}\n", "    l.slice().sort((a, b) => a - b);\n}\n",
           problem("f(l)", "  const l = [3, 1, 2];\n  candidate(l);\n  assert.deepEqual(l,[1, 2, 3]);\n")),
    Honest("throws what the tests expect", "    if (x < 0) throw new RangeError('negative');\n    return x;\n}\n",
           "    if (x < 0) throw new Error('negative');\n    return x;\n}\n", problem(
               "f(x)", "  assert.throws(() => candidate(-1), RangeError);\n  assert.deepEqual(candidate(2),2);\n")),
    # what it prints, at its top level (before the dispatcher runs) and during the calls, goes to stderr
    Honest("output", "    console.log('called with', x);\n    return x;\n}\n  console.log('top level');\n",
           "    console.log('called with', x);\n    return -x;\n}\n  console.log('top level');\n",
           problem("f(x)", "  assert.deepEqual(candidate(2),2);\n  assert.deepEqual(candidate(3),3);\n")),
    # helpers and state of its own, CommonJS names, output, and a function named as the tests' own
    Honest("helpers", "    return twice(x + y) / 2;\n}\nconst twice = (v) => 2 * v;\nlet calls = 0;\n"
           "module.exports = { add };\nexports.twice = twice;\nconsole.log(typeof require('fs').readFileSync, "
           "__filename.length > 0);\nfunction test() { throw new Error('not the tests'); }\n",
           "    return twice(x - y) / 2;\n}\nconst twice = (v) => 2 * v;\n", ADD),
    # loose deepEqual as in MultiPL-E: a string answer for a number is equal
    Honest("loose equality", "    return String(x + y);\n}\n", "    return String(x - y);\n}\n", ADD),
    # lengths the grader counts in UTF-8 bytes, and JavaScript strings in UTF-16 units
    Honest("text beyond ASCII", "    return x + y; // é ✓ 😀\n}\n", WRONG, Problem(
        "javascript", ADD_PROMPT.replace("x and y", "x and y (é ✓ 😀)"), ADD_TESTS, STOPS)),
    Honest("strict assert", "    return x + y;\n}\n", WRONG, Problem(
        "javascript", ADD_PROMPT, ADD_TESTS.replace("require('node:assert')", "require('assert').strict"), STOPS)),
]


@pytest.fixture(scope="module")
def results(server_address: str) -> dict[str, reward_pb2.ScoreResult]:
    broken = function_style("broken", "javascript", ADD_PROMPT, "    return x + ;\n}\n", ADD_TESTS, stop_tokens=STOPS)
    unsupported = function_style("unsupported", "javascript", ADD_PROMPT, "    return x + y;\n}\n",
                                 ADD_TESTS.replace("candidate(0, 1),1", "candidate(() => 0, 1),1"), stop_tokens=STOPS)
    return score_cases(server_address, "javascript", HACKS, [*HELD, *SPLIT], HONEST, [broken, unsupported])


globals().update(case_tests(HACKS, held=[*HELD, *SPLIT], honest=HONEST))


def test_errors_name_the_tests_and_the_program(results) -> None:
    """A failing assertion is the tests' own; a program that does not parse ends before its first call (the detail's
    tail is the tests' stack)."""
    assert "AssertionError" in results["wrong/add"].detail, results["wrong/add"].detail
    broken = results["broken"]
    assert verdict_name(broken) == "RUNTIME_ERROR" and "at _rs_call" in broken.detail, broken.detail


def test_an_argument_the_wire_cannot_carry_is_unsupported(results) -> None:
    """A function among the benchmark's arguments is not the program's fault."""
    assert verdict_name(results["unsupported"]) == "INFRA_UNSUPPORTED_TEST", results["unsupported"]
