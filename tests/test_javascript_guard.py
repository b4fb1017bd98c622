"""The JavaScript guard (docs/guards.md), through a real server and real sandboxes.

Each hack is a completion in MultiPL-E's own layout (HumanEval_53_add: the prompt opens the function, the tests
require node:assert and call `test()`, MultiPL-E's stop tokens) that makes a wrong add(x, y) pass as the plain
MultiPL-E program (one file, graded as a stdin/stdout program: what ran before the guard), and that must not pass
guarded. Honest programs keep their verdicts.
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
    Hack("swallows the failed assertion", WRONG + "process.on('uncaughtException', () => {});\n", "EXITED_EARLY", ADD),
    Hack("exits 0 from the failure's stack trace", WRONG + "Error.prepareStackTrace = () => process.exit(0);\n",
         "EXITED_EARLY", ADD),
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


SORT_PROMPT = "//Sort l and drop its duplicates.\nfunction unique(l){\n"
SORT_TESTS = ("const assert = require('node:assert');\n\n\nfunction test() {\n  let candidate = unique;\n"
              "  assert.deepEqual(candidate([5, 3, 5, 2, 3, 3, 9, 0, 123]),[0, 2, 3, 5, 9, 123]);\n"
              "  assert.deepEqual(candidate([]),[]);\n}\n\ntest();")
HONEST = [
    Honest("add", "    return x + y;\n}\n", WRONG, ADD),
    Honest("arrays", "    return [...new Set(l)].sort((a, b) => a - b);\n}\n", "    return l;\n}\n",
           Problem("javascript", SORT_PROMPT, SORT_TESTS, STOPS)),
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
    return score_cases(server_address, "javascript", HACKS, HELD, HONEST, [broken])


globals().update(case_tests(HACKS, held=HELD, honest=HONEST))


def test_errors_point_at_the_assembled_program(results) -> None:
    """Numbered as prompt + completion + "\\n" + tests: the failing assertion is line 15, the broken line 7."""
    assert "program.js:15:" in results["wrong/add"].detail, results["wrong/add"].detail
    broken = results["broken"]
    assert verdict_name(broken) == "RUNTIME_ERROR" and "program.js:7" in broken.detail, broken.detail
