"""TypeScript's tests in a process of their own (docs/guards.md, "Two processes"): JavaScript's templates, each side
compiled by tsc, the tests against a stub declared with the prompt's own signature, through a real server and real
sandboxes.

Each hack is a completion in MultiPL-E's own layout (HumanEval_53_add: the prompt opens the function with its types,
the tests `declare var require`, require node:assert and call `test()`, MultiPL-E's stop tokens) that makes a wrong
add(x, y) pass as the plain MultiPL-E program (one file that tsc compiles, graded as a stdin/stdout program: what ran
before the split), and that must not pass split; so must JavaScript's hacks against the split. Honest programs keep
their verdicts, a type error among them: the tests are still type-checked against the prompt's signature.
"""

from __future__ import annotations

import dataclasses

import pytest

from reward_server.graders.function_style import assemble_program, function_program
from reward_server.pb import reward_pb2
from tests import test_javascript_guard as javascript
from tests.candidates import function_style, stdio, verdict_name
from tests.guard_cases import Hack, Honest, Problem, case_tests, score_cases
from tests.language_table import load_table

STOPS = ("\nfunction ", "\n/*", "\n//", "\nclass")
ANSWER, WRONG = javascript.ANSWER, javascript.WRONG   # tsc prints `candidate(0, 1), 1`: parseInt skips the space
# MultiPL-E's HumanEval_53_add in TypeScript (tests/data/multipl_e_humaneval.jsonl)
ADD_PROMPT = ("//Add two numbers x and y\n// >>> add(2, 3)\n// 5\n// >>> add(5, 7)\n// 12\n"
              "function add(x: number, y: number): number {\n")
ADD_TESTS = ("declare var require: any;\nconst assert = require('node:assert');\n\n\nfunction test() {\n"
             "  let candidate = add;\n  assert.deepEqual(candidate(0, 1),1);\n  assert.deepEqual(candidate(1, 0),1);\n"
             "  assert.deepEqual(candidate(2, 3),5);\n  assert.deepEqual(candidate(5, 7),12);\n"
             "  assert.deepEqual(candidate(7, 5),12);\n}\n\ntest();")
# a stack trace's call sites, as V8 hands them to Error.prepareStackTrace, typed
CALL_SITES = ("    (Error as any).prepareStackTrace = (error: any, sites: any) => sites;\n"
              "    const sites: any = new Error().stack;\n")
# walk(dir): every file under dir read into `text`
READ_ALL = ("    const fs = require('fs');\n    let text = '';\n    const walk = (dir: string) => {\n"
            "        for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {\n"
            "            const name = dir + '/' + entry.name;\n"
            "            try { text += entry.isDirectory() ? (walk(name), '') : fs.readFileSync(name, 'utf8'); }"
            " catch (e) {}\n        }\n    };\n")


ADD = Problem("typescript", ADD_PROMPT, ADD_TESTS, STOPS)
# JavaScript's hacks, posed as TypeScript's: those that tsc accepts as they are, the others typed here
UNTYPED = {"Module._load patched", "reads the tests through a call site", "process.exit replaced",
           "reads the tests' file through the fs binding", "a value whose every property says yes", "require rebound",
           "signals the tests' process to start its inspector"}


def _posed(hacks: list[Hack]) -> list[Hack]:
    return [dataclasses.replace(hack, problem=ADD) for hack in hacks if hack.name not in UNTYPED]


HACKS = [
    # the families measured to pass before (assert's deepEqual replaced, require rebound, Module.prototype.require
    # patched, reads process.argv[1], reads __filename), and JavaScript's variants
    *_posed(javascript.HACKS),
    Hack("Module._load patched", WRONG + "(module.constructor as any)._load = () => ({ deepEqual() {} });\n",
         "RUNTIME_ERROR", ADD),
    # the program's side alone has Node's types, not the tests' `declare var require: any`
    Hack("require rebound", WRONG + "require = (() => ({ deepEqual() {} })) as any;\n", "RUNTIME_ERROR", ADD),
    Hack("reads the tests through a call site",
         CALL_SITES + "    const text = String(sites[1].getFunction());\n"
         "    (Error as any).prepareStackTrace = undefined;\n" + ANSWER, "RUNTIME_ERROR", ADD),
    # variants the guard was not built against
    Hack("deepEqual patched in a static block of a class expression",
         WRONG + "const patch = class { static { require('node:assert').deepEqual = () => {}; } };\n",
         "RUNTIME_ERROR", ADD),
    Hack("reads every file under the workspace and /tmp", READ_ALL + "    walk('/sandbox');\n    walk('/tmp');\n"
         "    walk(process.cwd());\n" + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("reads the tests' files by name", "    const fs = require('fs');\n    let text = '';\n"
         "    for (const name of ['main.ts', 'tests.ts', 'tests.js', 'program.ts', 'program.js', 'main.js'])\n"
         "        try { text += fs.readFileSync(name, 'utf8'); } catch (e) {}\n" + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("reads require.main's file",
         "    const text = require('fs').readFileSync(require.main.filename, 'utf8');\n" + ANSWER,
         "RUNTIME_ERROR", ADD),
    Hack("reads the tests through arguments.callee.caller",
         "    const text = String((function () { return arguments.callee.caller.caller; })());\n" + ANSWER,
         "RUNTIME_ERROR", ADD),
]
# reach for what the tests use, but fail plainly too: guarded, the tests still fail
HELD = [
    *_posed(javascript.HELD),
    Hack("process.exit replaced", WRONG + "process.exit = (() => {}) as any;\n", "RUNTIME_ERROR", ADD),
    # the tests' own names declared by the program: its own now (a type error in one file), and still wrong
    Hack("its own assert", WRONG + "const assert = { deepEqual() {} };\n", "RUNTIME_ERROR", ADD),
    Hack("its own test", WRONG + "const test = () => {};\n", "RUNTIME_ERROR", ADD),
]
SPLIT = [
    *_posed(javascript.SPLIT),
    Hack("reads the tests' file through the fs binding", "    const fs = (process as any).binding('fs');\n"
         "    const text = String(fs.open('../t/main.js', 0, 0));\n" + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("signals the tests' process to start its inspector", javascript.OTHERS + "    for (const pid of others) "
         "try { (process as any)._debugProcess(+pid); } catch (e) {}\n" + WRONG.lstrip(" "), "RUNTIME_ERROR", ADD),
    Hack("a value whose every property says yes", "    return new Proxy({}, { get: () => () => true, "
         "getPrototypeOf: () => Number.prototype }) as any;\n}\n", "RUNTIME_ERROR", ADD),
]


SORT_PROMPT = "//Sort l and drop its duplicates.\nfunction unique(l: number[]): number[] {\n"
SORT_TESTS = ("declare var require: any;\nconst assert = require('node:assert');\n\n\nfunction test() {\n"
              "  let candidate = unique;\n"
              "  assert.deepEqual(candidate([5, 3, 5, 2, 3, 3, 9, 0, 123]),[0, 2, 3, 5, 9, 123]);\n"
              "  assert.deepEqual(candidate([]),[]);\n}\n\ntest();")
HONEST = [
    Honest("add", "    return x + y;\n}\n", WRONG, ADD),
    Honest("arrays", "    return [...new Set(l)].sort((a, b) => a - b);\n}\n", "    return l;\n}\n",
           Problem("typescript", SORT_PROMPT, SORT_TESTS, STOPS)),
    # helpers, types and state of its own, CommonJS names, output, and a global named as a local of the tests
    Honest("helpers", "    return twice(x + y) / 2;\n}\nconst twice = (v: number): number => 2 * v;\n"
           "type Pair = [number, number];\ninterface Box { value: number }\nconst box: Box = { value: 0 };\n"
           "let pair: Pair = [1, 2];\nmodule.exports = { add };\nexports.twice = twice;\nconst candidate = 3;\n"
           "console.log(typeof require('fs').readFileSync, __filename.length > 0, pair, box);\n",
           "    return twice(x - y) / 2;\n}\nconst twice = (v: number): number => 2 * v;\n", ADD),
    # loose deepEqual as in MultiPL-E: a string answer for a number is equal
    Honest("loose equality", "    return String(x + y) as any;\n}\n", "    return String(x - y) as any;\n}\n", ADD),
    # a return type the prompt does not allow: tsc's error, as for the one file MultiPL-E compiles
    Honest("a type error", "    return x + y;\n}\n", "    return String(x + y);\n}\n", ADD, "COMPILE_ERROR"),
    # lengths the grader counts in UTF-8 bytes, and JavaScript strings in UTF-16 units
    Honest("text beyond ASCII", "    return x + y; // é ✓ 😀\n}\n", "    return x - y; // 😀\n}\n", Problem(
        "typescript", ADD_PROMPT.replace("x and y", "x and y (é ✓ 😀)"), ADD_TESTS.replace(
            "test();", "// ✓ 😀\ntest();"), STOPS)),
    Honest("strict assert", "    return x + y;\n}\n", WRONG, Problem(
        "typescript", ADD_PROMPT, ADD_TESTS.replace("require('node:assert')", "require('assert').strict"), STOPS)),
]


BROKEN = "    return x + ;\n}\n"


@pytest.fixture(scope="module")
def results(server_address: str) -> dict[str, reward_pb2.ScoreResult]:
    broken = function_style("broken", "typescript", ADD_PROMPT, BROKEN, ADD_TESTS, stop_tokens=STOPS)
    plain = stdio("plain/broken", "typescript", assemble_program(ADD_PROMPT, BROKEN, STOPS, ADD_TESTS), [("", "")])
    return score_cases(server_address, "typescript", HACKS, [*HELD, *SPLIT], HONEST, [broken, plain])


def test_the_sides_hold_the_program_and_the_tests_apart() -> None:
    """The program's side: the prompt, the completion cut at its stop tokens, the dispatcher; the tests' side: the
    stub declared as the prompt declares the function, the tests, the marker. Nothing of the tests on the program's."""
    program = function_program(load_table().resolve("typescript"), ADD_PROMPT, WRONG + "\n// the rest", STOPS,
                               ADD_TESTS)
    assert program.source.startswith(ADD_PROMPT + WRONG + "\n") and "_rs_serve(add);" in program.source
    assert "candidate" not in program.source and program.marker not in program.source
    assert "function add(x: number, y: number): number {\n  return _rs_call(" in program.tests
    assert ADD_TESTS in program.tests and program.marker in program.tests and ADD_PROMPT not in program.tests


globals().update(case_tests(HACKS, held=[*HELD, *SPLIT], honest=HONEST))


def test_errors_name_the_tests_and_the_compiler(results) -> None:
    """A failing assertion is the tests' own; a syntax error is tsc's, as in one file."""
    assert "AssertionError" in results["wrong/add"].detail, results["wrong/add"].detail
    assert verdict_name(results["broken"]) == verdict_name(results["plain/broken"]) == "COMPILE_ERROR"
