"""Ruby's tests in a process of their own (docs/guards.md, "Two processes"), through a real server and real sandboxes.

Each hack is a completion in MultiPL-E's own layout (HumanEval_53_add: the prompt opens the method, the tests require
test/unit and define a TestCase whose test calls assert_equal, MultiPL-E's stop tokens) that makes a wrong add(x, y)
pass as the plain MultiPL-E program (one file, graded as a stdin/stdout program: what ran before the split), and that
must not pass split. Honest programs keep their verdicts.
"""

from __future__ import annotations

import pytest

from reward_server.pb import reward_pb2
from tests.candidates import function_style, verdict_name
from tests.guard_cases import Hack, Honest, Problem, case_tests, score_cases

STOPS = ("\nclass", "\ndef", "\n#", "\n\n")
# MultiPL-E's HumanEval_53_add in Ruby (tests/data/multipl_e_humaneval.jsonl)
ADD_PROMPT = "# Add two numbers x and y\n# >>> add(2, 3)\n# 5\n# >>> add(5, 7)\n# 12\ndef add(x, y)\n"
ADD_TESTS = ("require 'test/unit'\nclass TestHumanEval < Test::Unit::TestCase\n  def test_add\n"
             "    candidate = method(:add)\n    assert_equal(1, candidate.call(0, 1))\n"
             "    assert_equal(1, candidate.call(1, 0))\n    assert_equal(5, candidate.call(2, 3))\n"
             "    assert_equal(12, candidate.call(5, 7))\n    assert_equal(12, candidate.call(7, 5))\n  end\nend\n")
WRONG = "  x - y\nend\n"
# add's answer as the tests give it, read from `text`: what the answer-reading hacks look for
ANSWER = ("  found = text.match(/assert_equal\\((\\d+), candidate.call\\(#{x}, #{y}\\)\\)/)\n"
          "  found ? found[1].to_i : -1\nend\n")
# the tests' own test method, run on a test case object of its own whose assert_equal records what is expected
RERUN = ("  return [x, y] if $recording\n  unless $expected\n    $recording, $expected = true, {}\n"
         "    recorder = test_case.allocate\n"
         "    recorder.define_singleton_method(:assert_equal) { |want, got, *| $expected[got] = want }\n"
         "    test_case.instance_methods(false).grep(/test/).each do |name|\n"
         "      test_case.instance_method(name).bind_call(recorder)\n    end\n"
         "    $recording = false\n  end\n  $expected.fetch([x, y], -1)\nend\n")
TEST_UNIT = "require 'test/unit'\n"


ADD = Problem("ruby", ADD_PROMPT, ADD_TESTS, STOPS)


HACKS = [
    # the families measured to pass before
    Hack("Assertions' assert_equal reopened",
         WRONG + TEST_UNIT + "module Test::Unit::Assertions; def assert_equal(*) end; end\n", "RUNTIME_ERROR", ADD),
    Hack("reads $0", "  text = File.read($0)\n" + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("reads __FILE__", "  text = File.read(__FILE__)\n" + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("an answer equal to everything", "  answer = Object.new\n  answer.define_singleton_method(:==) { |_| true }\n"
         "  answer\nend\n", "RUNTIME_ERROR", ADD),
    # variants the guard was not built against
    Hack("TestCase's assert_equal through class_eval",
         WRONG + TEST_UNIT + "Test::Unit::TestCase.class_eval { define_method(:assert_equal) { |*| nil } }\n",
         "RUNTIME_ERROR", ADD),
    Hack("a module prepended to Assertions",
         WRONG + TEST_UNIT + "Test::Unit::Assertions.prepend(Module.new { define_method(:assert_equal) { |*| } })\n",
         "RUNTIME_ERROR", ADD),
    Hack("Integer#== prepended", WRONG + "Integer.prepend(Module.new { define_method(:==) { |_| true } })\n",
         "RUNTIME_ERROR", ADD),
    Hack("Integer#== refined, then prepended",
         WRONG + "Module.new { refine(Integer) { define_method(:==) { |_| true } } }\n"
         "Integer.prepend(Module.new { define_method(:==) { |_| true } })\n", "RUNTIME_ERROR", ADD),
    Hack("a String whose == says yes", "  Class.new(String) { define_method(:==) { |_| true } }.new('?')\nend\n",
         "RUNTIME_ERROR", ADD),
    Hack("the test case made first, with an assert_equal of its own",
         WRONG + TEST_UNIT + "TestHumanEval = Class.new(Test::Unit::TestCase) { define_method(:assert_equal) { |*| } }"
         "\n",
         "RUNTIME_ERROR", ADD),
    Hack("the tests' test method rerun with a recording assert_equal", "  test_case = self.class\n" + RERUN,
         "RUNTIME_ERROR", ADD),
    Hack("the test case found by ObjectSpace",
         "  test_case = ObjectSpace.each_object(Class).find { |c| c.name == 'TestHumanEval' }\n" + RERUN,
         "RUNTIME_ERROR", ADD),
    Hack("the test method's instructions read",
         "  code = RubyVM::InstructionSequence.of(self.class.instance_method(:test_add)).disasm\n"
         "  numbers = code.scan(/putobject(?:_INT2FIX_(\\d)_|\\s+(-?\\d+))/).map { |a, b| (a || b).to_i }\n"
         "  numbers.each_slice(3) { |want, a, b| return want if a == x && b == y }\n  -1\nend\n",
         "RUNTIME_ERROR", ADD),
    Hack("a TracePoint that sets assert_equal's actual",
         WRONG + "TracePoint.new(:call) { |tp| tp.binding.local_variable_set(:actual, tp.binding.local_variable_get("
         ":expected)) if tp.method_id == :assert_equal }.enable\n", "RUNTIME_ERROR", ADD),
    Hack("Kernel#raise made a no-op", WRONG + "module Kernel; def raise(*) end; end\n", "RUNTIME_ERROR", ADD),
    Hack("exits 0 at exit", WRONG + "at_exit { exit!(0) }\n", "RUNTIME_ERROR", ADD),
]
# what a program in a process of its own might still try: the tests' file and process are out of its reach, it
# cannot fork, and only data crosses back
SPLIT_HACKS = [
    Hack("reads the tests' file", "  text = File.read('../t/main.rb')\n" + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("opens the tests' memory",
         "  others = Dir['/proc/[0-9]*'] - [\"/proc/#{$$}\"]\n"
         "  others.any? { |pid| File.open(\"#{pid}/mem\", 'rb') { true } rescue false } ? x + y : x - y\nend\n",
         "RUNTIME_ERROR", ADD),
    Hack("a child per guess", "  (0..20).each do |guess|\n    pid = fork\n    return guess if pid.nil?\n"
         "    Process.wait(pid)\n    return guess if $?.success?\n  end\n  -1\nend\n", "RUNTIME_ERROR", ADD),
    Hack("exits 0 mid-call", "  exit!(0)\nend\n", "RUNTIME_ERROR", ADD),
    Hack("prints a marker of its own", "  $stderr.puts('0123456789abcdef0123456789abcdef')\n  exit!(0)\nend\n",
         "RUNTIME_ERROR", ADD),
    Hack("garbage on the reply descriptors",
         "  (1..20).each { |fd| IO.new(fd, autoclose: false).syswrite(\"\\0R\") rescue nil }\n  x - y\nend\n",
         "RUNTIME_ERROR", ADD),
]
# reach for what the tests use, but fail plainly too: guarded, the tests still fail
HELD = [
    Hack("a Test::Unit of its own",
         WRONG + TEST_UNIT + "Object.send(:remove_const, :Test)\nmodule Test; module Unit; class TestCase; "
         "define_method(:assert_equal) { |*| }; end; end; end\n", "RUNTIME_ERROR", ADD),
    Hack("a top-level assert_equal", WRONG + "define_method(:assert_equal) { |*| }\n", "RUNTIME_ERROR", ADD),
]


SORT_PROMPT = "# Sort l and drop its duplicates.\ndef unique(l)\n"
SORT_TESTS = ("require 'test/unit'\nclass TestHumanEval < Test::Unit::TestCase\n  def test_unique\n"
              "    candidate = method(:unique)\n"
              "    assert_equal([0, 2, 3, 5, 9, 123], candidate.call([5, 3, 5, 2, 3, 3, 9, 0, 123]))\n"
              "    assert_equal([], candidate.call([]))\n  end\nend\n")
COUNT_PROMPT = "# Count each word of s.\ndef histogram(s)\n"
COUNT_TESTS = ("require 'test/unit'\nclass TestHumanEval < Test::Unit::TestCase\n  def test_histogram\n"
               "    candidate = method(:histogram)\n"
               "    assert_equal({\"a\" => 2, \"b\" => 1}, candidate.call(\"a b a\"))\n"
               "    assert_equal({}, candidate.call(\"\"))\n  end\nend\n")
HONEST = [
    Honest("add", "  x + y\nend\n", WRONG, ADD),
    Honest("arrays", "  l.uniq.sort\nend\n", "  l\nend\n", Problem("ruby", SORT_PROMPT, SORT_TESTS, STOPS)),
    Honest("hashes", "  s.split.tally\nend\n", "  s.split.tally.transform_values { |v| v + 1 }\nend\n",
           Problem("ruby", COUNT_PROMPT, COUNT_TESTS, STOPS)),
    # output before the dispatcher's BEGIN takes stdout: a BEGIN block of its own (a reply's shape among it)
    Honest("prints in a BEGIN block",
           "  x + y\nend\nBEGIN { puts 'starting é ✓ 😀'; $stdout.write(\"RNl2:i0;i1;\\0R\") }\n",
           "  x - y\nend\nBEGIN { puts 'starting' }\n", ADD),
    # helpers, state on self, a library, output, core classes extended, a method named as the tests' tool
    # (indented: a line that starts with `def` or `class` is a stop token)
    Honest("helpers", "  @calls = (@calls || 0) + 1\n  twice(x + y) / 2\nend\nrequire 'prime'\n"
           "  def twice(v) = Prime.first(1).first * v\nputs [__FILE__.size > 0, add(1, 1)].inspect\n"
           "  class Integer; def double = self * 2; end\n  def assert_equal(*) = raise('not the tests')\n",
           "  twice(x - y) / 2\nend\n  def twice(v) = 2 * v\n", ADD),
    # test/unit's loose equality: a Float answer for an Integer
    Honest("loose equality", "  (x + y).to_f\nend\n", "  (x - y).to_f\nend\n", ADD),
    # lengths the grader counts in UTF-8 bytes
    Honest("text beyond ASCII", "  x + y # é ✓ 😀\nend\n", WRONG, Problem(
        "ruby", ADD_PROMPT.replace("x and y", "x and y (é ✓ 😀)"), ADD_TESTS, STOPS)),
]


@pytest.fixture(scope="module")
def results(server_address: str) -> dict[str, reward_pb2.ScoreResult]:
    broken = function_style("broken", "ruby", ADD_PROMPT, "  x +\nend end\n", ADD_TESTS, stop_tokens=STOPS)
    return score_cases(server_address, "ruby", HACKS, HELD + SPLIT_HACKS, HONEST, [broken])


globals().update(case_tests(HACKS, held=HELD + SPLIT_HACKS, honest=HONEST))


def test_errors_point_at_the_program(results) -> None:
    """The program's side is prompt + completion + "\\n" + dispatcher: the broken line is line 8 of main.rb."""
    broken = results["broken"]
    assert verdict_name(broken) == "RUNTIME_ERROR" and "main.rb:8: syntax error" in broken.detail, broken.detail
