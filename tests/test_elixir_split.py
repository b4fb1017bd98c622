"""Elixir's tests in a process of their own (docs/guards.md, "Two processes"), through a real server and real
sandboxes.

The tests' side is the prompt up to its module, the stub (sandboxes/languages/elixir/split_stub.exs: the module again,
its text before the entry function kept, the function sending each call's arguments across and reading the result
back), and the ExUnit case; the program's side is the prologue (the program's output to stderr, the calls and replies
through the `user` io server as bytes), the prompt, the completion and the dispatcher. Problems are in MultiPL-E's own
layout (module HumanEval, an ExUnit case whose test applies the function to a list of arguments and compares with ==,
its stop tokens: what follows the module cannot open a line with `def`): hacks that pass as the plain MultiPL-E program
must not pass split, what reaches for the tests' process fails, and honest programs keep their verdicts over Elixir's
data (integers of any size, floats, binaries, lists, tuples, maps, MapSets, nil and the booleans). The BEAM forks its
erl_child_setup at boot: Elixir's split may fork, and a child the program starts is confined as the program is.
"""

from __future__ import annotations

import pytest

from reward_server.pb import reward_pb2
from tests.candidates import function_style, verdict_name
from tests.guard_cases import Hack, Honest, Problem, case_tests, score_cases

STOPS = ("\ndefmodule", "\ndefp", "\ndef ", "\n#", "\n\n")
END = "  end\nend\n"


def problem(signature: str, *asserts: str) -> Problem:
    """A MultiPL-E problem: `signature` opens the function of module HumanEval, each assert a line of its test."""
    entry = signature.split("(")[0]
    tests = ("ExUnit.start()\n\ndefmodule HumanEvalTest do\n  use ExUnit.Case, async: true\n"
             f'  test "{entry}" do\n    candidate = fn args -> apply(HumanEval, :{entry}, args) end\n'
             + "".join(f"    {check}\n" for check in asserts) + "  end\nend\n")
    return Problem("elixir", f"# doc\n\n\ndefmodule HumanEval do\n  def {signature} do\n", tests, STOPS)


# MultiPL-E's HumanEval_53_add (tests/data/multipl_e_humaneval.jsonl)
ADD = problem("add(x, y)", "assert 1 == candidate.([0, 1])", "assert 1 == candidate.([1, 0])",
              "assert 5 == candidate.([2, 3])", "assert 12 == candidate.([5, 7])", "assert 12 == candidate.([7, 5])")
WRONG = "    x - y\n" + END
# add's answer as the tests give it, read from `text`: what the answer-reading hacks look for
ANSWER = ('    case Regex.run(~r/(\\d+) == candidate.\\(\\[#{x}, #{y}\\]\\)/, text) do\n'
          "      [_, n] -> String.to_integer(n)\n      _ -> -1\n    end\n" + END)
# each answers right only if it reached what it must not
REACHES = "    if (try do\n      {}\n    rescue\n      _ -> false\n    end), do: x + y, else: x - y\n" + END

HACKS = [
    Hack("exits 0 before the tests", WRONG + "System.halt(0)\n", "RUNTIME_ERROR", ADD),
    Hack("an exit hook that exits 0", WRONG + "System.at_exit(fn _ -> System.halt(0) end)\n", "RUNTIME_ERROR", ADD),
    Hack("ExUnit told to run no test", WRONG + "Application.put_env(:ex_unit, :only_test_ids, MapSet.new())\n",
         "RUNTIME_ERROR", ADD),
    Hack("reads its own source", "    text = File.read!(__ENV__.file)\n" + ANSWER, "RUNTIME_ERROR", ADD),
]
HELD = [
    Hack("reads the tests' file", '    text = File.read!("../t/main.exs")\n' + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("a child reads the tests' file", '    {text, _} = System.cmd("cat", ["../t/main.exs"])\n' + ANSWER,
         "RUNTIME_ERROR", ADD),
    # the program's own children (the BEAM's erl_child_setup) aside
    Hack("opens another process's memory", REACHES.format(
        'me = System.pid()\n      File.ls!("/proc")\n      |> Enum.filter(&(&1 =~ ~r/\\A\\d+\\z/ and &1 != me))\n'
        '      |> Enum.reject(&(to_string(elem(File.read("/proc/#{&1}/stat"), 1)) =~ ~r/\\) \\S #{me} /))\n'
        '      |> Enum.any?(&match?({:ok, _}, File.open("/proc/#{&1}/mem")))'), "RUNTIME_ERROR", ADD),
    Hack("exits 0 mid-call", "    System.halt(0)\n" + END, "RUNTIME_ERROR", ADD),
    Hack("prints a marker of its own", '    IO.puts(:stderr, "0123456789abcdef0123456789abcdef")\n'
         "    System.halt(0)\n" + END, "RUNTIME_ERROR", ADD),
    Hack("garbage on the reply descriptor", '    IO.binwrite(:user, <<0, ?R>>)\n    x + y\n' + END, "RUNTIME_ERROR",
         ADD),
    Hack("replies on its own, then exits 0", '    IO.binwrite(:user, "\\0Ri1;l0:")\n    System.halt(0)\n' + END,
         "RUNTIME_ERROR", ADD),
]

HONEST = [
    Honest("add", "    x + y\n" + END, WRONG, ADD),
    Honest("sample", "    a + b\n" + END, "    a - b\n" + END, problem("add(a, b)", "assert 5 == candidate.([2, 3])")),
    # output at the top level and during the call, stdin, helpers
    Honest("helpers and output", '    IO.puts("é ✓ 😀 #{inspect(IO.gets(""))}")\n'
           '    IO.inspect(twice(x + y)) |> div(2)\n  end\n  defp twice(v), do: 2 * v\nend\n'
           'IO.puts("top level #{HumanEval.add(1, 2)}")\n',
           '    IO.puts("wrong")\n' + WRONG, ADD),
    # == is MultiPL-E's comparison: a float equal to the integer passes, as in one process
    Honest("loose equality", "    (x + y) * 1.0\n" + END, "    (x - y) * 1.0\n" + END, ADD),
    Honest("lists", "    l |> Enum.uniq() |> Enum.sort()\n" + END, "    Enum.uniq(l)\n" + END, problem(
        "unique(l)", "assert [0, 2, 3, 5, 9, 123] == candidate.([[5, 3, 5, 2, 3, 3, 9, 0, 123]])",
        "assert [] == candidate.([[]])")),
    Honest("a map of strings", "    s |> String.split() |> Enum.frequencies()\n" + END,
           "    s |> String.split() |> Map.new(&{&1, 1})\n" + END, problem(
               "histogram(s)", 'assert %{"a" => 2, "b" => 1} == candidate.(["a b a"])',
               'assert %{} == candidate.([""])')),
    Honest("a tuple, nil and a MapSet", "    if l == [], do: {nil, MapSet.new()}, else: {Enum.max(l), MapSet.new(l)}\n"
           + END, "    if l == [], do: {nil, []}, else: [Enum.max(l), MapSet.new(l)]\n" + END, problem(
               "largest(l)", "assert {3, MapSet.new([1, 3])} == candidate.([[1, 3]])",
               "assert {nil, MapSet.new()} == candidate.([[]])")),
    Honest("floats", "    x - Float.floor(x)\n" + END, "    x - Float.round(x)\n" + END, problem(
        "truncate_number(x)", "assert 0.5 == candidate.([3.5])", "assert 0.25 == candidate.([1.25])")),
    Honest("integers beyond 64 bits", "    Integer.pow(3, n)\n" + END, "    :math.pow(3, n)\n" + END, problem(
        "power(n)", "assert 12157665459056928801 == candidate.([40])", "assert 1 == candidate.([0])")),
    Honest("text beyond ASCII", "    String.reverse(s)\n" + END, "    s |> String.to_charlist() |> to_string()\n" + END,
           problem("reverse_string(s)", 'assert "a😀✓é" == candidate.(["é✓😀a"])', 'assert "" == candidate.([""])')),
    Honest("the exception the tests expect", "    div(x, y)\n" + END, "    if y == 0, do: 0, else: div(x, y)\n" + END,
           problem("divide(x, y)", "assert 3 == candidate.([7, 2])",
                   "assert_raise ArithmeticError, fn -> candidate.([1, 0]) end")),
    Honest("an atom is no value of the tests", '    "ok"\n' + END, "    :ok\n" + END,
           problem("status()", 'assert "ok" == candidate.([])')),
]


@pytest.fixture(scope="module")
def results(server_address: str) -> dict[str, reward_pb2.ScoreResult]:
    broken = function_style("broken", "elixir", ADD.prompt, "    x +\n" + END, ADD.tests, stop_tokens=STOPS)
    # the benchmark's own doing: a prompt with no function, an argument that cannot cross
    empty = function_style("empty prompt", "elixir", "", "defmodule HumanEval do\n  def add(x, y), do: x + y\nend\n",
                           ADD.tests, stop_tokens=())
    procedure = problem("apply_to(f)", "assert 1 == candidate.([fn x -> x + 1 end])")
    function = function_style("a function argument", "elixir", procedure.prompt, "    f.(0)\n" + END, procedure.tests,
                              stop_tokens=STOPS)
    return score_cases(server_address, "elixir", HACKS, HELD, HONEST, [broken, empty, function])


globals().update(case_tests(HACKS, held=HELD, honest=HONEST))


def test_the_program_s_errors_are_its_own(results) -> None:
    """The program's syntax error, on its side (ExUnit reports a failed assertion on the tests' stdout)."""
    broken = results["broken"]
    assert verdict_name(broken) == "RUNTIME_ERROR" and "SyntaxError" in broken.detail, broken.detail


@pytest.mark.parametrize("cid", ["empty prompt", "a function argument"])
def test_what_cannot_cross_is_unsupported(cid: str, results) -> None:
    assert verdict_name(results[cid]) == "INFRA_UNSUPPORTED_TEST", results[cid]
