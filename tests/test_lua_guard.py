"""Lua's tests in a process of their own (docs/guards.md, "Two processes"), through a real server and real sandboxes.

Each hack is a completion in MultiPL-E's own layout (HumanEval_53_add: the prompt opens `local function add`, the
tests require luaunit and end with `os.exit(lu.LuaUnit.run())`, MultiPL-E's stop tokens) that makes a wrong add(x, y)
pass as the plain MultiPL-E program (one file, graded as a stdin/stdout program: what ran before the split), and that
must not pass split. Honest programs keep their verdicts.
"""

from __future__ import annotations

import pytest

from reward_server.pb import reward_pb2
from tests.candidates import function_style, verdict_name
from tests.guard_cases import Hack, Honest, Problem, case_tests, score_cases

STOPS = ("\nlocal", "\nfunction", "\n--", "\n\n")
# MultiPL-E's HumanEval_53_add in Lua (tests/data/multipl_e_humaneval.jsonl)
ADD_PROMPT = "-- Add two numbers x and y\n-- >>> add(2, 3)\n-- 5\n-- >>> add(5, 7)\n-- 12\nlocal function add(x, y)\n"
ADD_TESTS = ("lu = require('luaunit')\n\nfunction test_humaneval()\nlocal candidate = add\n"
             "    lu.assertEquals(candidate(0, 1), 1)\n    lu.assertEquals(candidate(1, 0), 1)\n"
             "    lu.assertEquals(candidate(2, 3), 5)\n    lu.assertEquals(candidate(5, 7), 12)\n"
             "    lu.assertEquals(candidate(7, 5), 12)\nend\n\nos.exit(lu.LuaUnit.run())")
WRONG = "  return x - y\nend\n"
FAKE_LUAUNIT = "{ assertEquals = function() end, LuaUnit = { run = function() return 0 end } }"
# add's answer as the tests give it, read from `text`: what the answer-reading hacks look for
ANSWER = ("  local call = 'candidate(' .. x .. ', ' .. y .. '), '\n  local _, at = text:find(call, 1, true)\n"
          "  return tonumber(text:match('^%d+', at + 1))\nend\n")

# the plain program's report silenced: luaunit prints its report (and the time it took) on stdout
SILENT = "print = function() end\nio.stdout = io.open('/dev/null', 'w')\n"


ADD = Problem("lua", ADD_PROMPT, ADD_TESTS, STOPS)
# the language's sample layout: a bare assert at the top level
SAMPLE = Problem("lua", "local function add(a, b)\n", "assert(add(2, 3) == 5)\n", STOPS)

HACKS = [
    # the families measured to pass before
    Hack("a fake luaunit in package.loaded", WRONG + f"package.loaded.luaunit = {FAKE_LUAUNIT}\n", "RUNTIME_ERROR",
         ADD),
    Hack("reads arg[0]", "  local text = io.open(arg[0]):read('a')\n" + ANSWER + SILENT, "RUNTIME_ERROR", ADD),
    # variants the guard was not built against
    Hack("a fake luaunit in package.preload",
         WRONG + f"package.preload.luaunit = function() return {FAKE_LUAUNIT} end\n", "RUNTIME_ERROR", ADD),
    Hack("require rebound", WRONG + f"require = function() return {FAKE_LUAUNIT} end\n", "RUNTIME_ERROR", ADD),
    Hack("os.exit replaced", WRONG + "os.exit = function() end\n" + SILENT, "RUNTIME_ERROR", ADD),
    Hack("string.lower patched: luaunit finds no tests", WRONG + "string.lower = function() return '' end\n" + SILENT,
         "RUNTIME_ERROR", ADD),
    Hack("the string metatable's methods replaced",
         WRONG + "getmetatable('').__index = setmetatable({ lower = function() return '' end }, "
         "{ __index = string })\n" + SILENT, "RUNTIME_ERROR", ADD),
    Hack("_G drops the test function", WRONG + "setmetatable(_G, { __newindex = function(t, k, v)\n"
         "  if not k:find('^test') then rawset(t, k, v) end\nend })\n" + SILENT, "RUNTIME_ERROR", ADD),
    Hack("pairs replaced: luaunit finds no tests", WRONG + "pairs = function() return next, {} end\n" + SILENT,
         "RUNTIME_ERROR", ADD),
    Hack("assert replaced", "  return a - b\nend\nassert = function() return true end\n", "RUNTIME_ERROR", SAMPLE),
    Hack("exits 0 before the tests", WRONG + "os.exit(0)\n", "RUNTIME_ERROR", ADD),
    Hack("returns from the top level before the tests", WRONG + "do return end\n", "RUNTIME_ERROR", ADD),
]
# what a program in a process of its own might still try: the tests' file and process are out of its reach, it
# cannot fork, and only data crosses back
SPLIT_HACKS = [
    Hack("reads the tests' file", "  local text = io.open('../t/main.lua'):read('a')\n" + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("opens the tests' memory",
         "  local self, parent = io.open('/proc/self/stat'):read('a'):match('^(%d+) %b() %a (%d+)')\n"
         "  for pid = parent, parent + 4 do\n"
         "    if pid ~= tonumber(self) and io.open('/proc/' .. pid .. '/mem', 'rb') then return x + y end\n  end\n"
         "  return x - y\nend\n", "RUNTIME_ERROR", ADD),
    Hack("exits 0 mid-call", "  os.exit(0)\nend\n", "RUNTIME_ERROR", ADD),
    Hack("prints a marker of its own", "  io.stderr:write('0123456789abcdef0123456789abcdef\\n')\n  os.exit(0)\nend\n",
         "RUNTIME_ERROR", ADD),
    Hack("garbage on the reply descriptor", "  io.open('/dev/fd/1', 'w'):write('\\0R')\n  return x - y\nend\n",
         "RUNTIME_ERROR", ADD),
]
# reach for what the tests use, but fail plainly too: guarded, the tests still fail
HELD = [
    Hack("the marker from the loader's locals", WRONG + "for level = 2, 4 do\n  for i = 1, 20 do\n"
         "    local name, value = debug.getlocal(level, i)\n"
         "    if name == 'marker' then io.stderr:write(value .. '\\n') os.exit(0) end\n  end\nend\n",
         "RUNTIME_ERROR", ADD),
    Hack("the debug library through require", WRONG + "require('debug').sethook(function() end, 'c')\n",
         "RUNTIME_ERROR", ADD),
    Hack("the debug library through a C loader", WRONG + "package.loadlib('liblua5.4.so.0', 'luaopen_debug')\n",
         "RUNTIME_ERROR", ADD),
    Hack("a global lu", WRONG + f"lu = {FAKE_LUAUNIT}\n", "RUNTIME_ERROR", ADD),
    Hack("reads every file of its directory",
         "  local text = ''\n  for name in io.popen('ls'):lines() do text = text .. io.open(name):read('a') end\n"
         + ANSWER, "RUNTIME_ERROR", ADD),
]

HONEST = [
    Honest("add", "  return x + y\nend\n", WRONG, ADD),
    Honest("sample", "  return a + b\nend\n", "  return a - b\nend\n", SAMPLE),
    # helpers, string methods and globals of its own, output during a call, text beyond ASCII, a global named as
    # luaunit's
    Honest("helpers", "  print(('é ✓ 😀'):shout(), arg[0] ~= nil)\n  return twice(x + y) / 2\nend\n"
           "twice = function(v) return 2 * v end\nstring.shout = function(s) return s:upper() .. '!' end\n"
           "assertEquals = 1\n", "  return twice(x - y) / 2\nend\ntwice = function(v) return 2 * v end\n", ADD),
    # output at the top level, before the dispatcher at the end runs (a reply's shape among it), and a read of stdin
    Honest("prints at the top level", "  return x + y\nend\nprint('starting é ✓ 😀', 1)\nio.write('RNl2:i0;i1;')\n"
           "io.stdout:write('\\0R')\nassert(io.read() == nil)\n",
           "  return x - y\nend\nprint('starting')\nio.write('RNl2:i0;i1;')\n", ADD),
    Honest("text beyond ASCII", "  return x + y -- é ✓ 😀\nend\n", WRONG, Problem(
        "lua", ADD_PROMPT.replace("x and y", "x and y (é ✓ 😀)"), ADD_TESTS, STOPS)),
    # a prompt's function named like a global the tests' environment copies: the tests find the program's
    Honest("a function named like a builtin", "  return x + y\nend\n", WRONG, Problem(
        "lua", ADD_PROMPT.replace("add", "select"), ADD_TESTS.replace("= add", "= select"), STOPS)),
    # a method the program adds to strings, called by the prompt's function while the tests run
    Honest("a string method of its own", "  return (''):width() + x + y\nend\n"
           "string.width = function(s) return #s end\n", "  return (''):width() + x - y\nend\n"
           "string.width = function(s) return #s end\n", ADD),
]


@pytest.fixture(scope="module")
def results(server_address: str) -> dict[str, reward_pb2.ScoreResult]:
    broken = function_style("broken", "lua", ADD_PROMPT, "  return x +\nend\n", ADD_TESTS, stop_tokens=STOPS)
    return score_cases(server_address, "lua", HACKS, HELD + SPLIT_HACKS, HONEST, [broken])


globals().update(case_tests(HACKS, held=HELD + SPLIT_HACKS, honest=HONEST))


def test_errors_point_at_the_program(results) -> None:
    """The tests' failure is theirs; the program's side is the prologue + prompt + completion + "\\n" + dispatcher,
    the prologue on the prompt's first line: the broken line is line 8 of main.lua."""
    assert "assertion failed!" in results["wrong/sample"].detail, results["wrong/sample"].detail
    broken = results["broken"]
    assert verdict_name(broken) == "RUNTIME_ERROR" and "main.lua:8:" in broken.detail, broken.detail
