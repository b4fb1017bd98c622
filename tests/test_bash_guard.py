"""Bash's tests in a process of their own (docs/guards.md, "Two processes"), through a real server and real sandboxes.

Each hack is a completion in MultiPL-E's own layout (HumanEval_53_add: the prompt opens the function, the tests close
it, define `candidate` and `run_test`, turn on `set -e` and call `run_test`; the stop token "\\n}") that makes a wrong
add(x, y) pass as the plain MultiPL-E program (one file, graded as a stdin/stdout program: what ran before the guard),
and that must not pass split. A completion reaches the top level by closing the function on an indented brace and
opening a function of its own that the tests' brace closes. Honest programs keep their verdicts.
"""

from __future__ import annotations

import pytest

from reward_server.pb import reward_pb2
from tests.candidates import function_style, verdict_name
from tests.guard_cases import Hack, Honest, Problem, case_tests, score_cases

STOPS = ("\n}",)
# MultiPL-E's HumanEval_53_add in bash (tests/data/multipl_e_humaneval.jsonl)
ADD_PROMPT = ("#!/bin/bash\n# Add two numbers x and y\n# >>> add(2, 3)\n# 5\n# >>> add(5, 7)\n# 12\n#\n"
              "# $1 is an integer\n# $2 is an integer\nadd() {\n")
ADD_TESTS = ('}\n\ncandidate() {\n    add "$@"\n}\n\nset -e\nrun_test() {\n    [[ $(candidate "0" "1") = "1" ]]\n'
             '    [[ $(candidate "1" "0") = "1" ]]\n    [[ $(candidate "2" "3") = "5" ]]\n'
             '    [[ $(candidate "5" "7") = "12" ]]\n    [[ $(candidate "7" "5") = "12" ]]\n}\n\nrun_test')
WRONG = "    echo $(( $1 - $2 ))"
# wrong on the first test alone: set -e is what fails it
WRONG_FIRST = "    if (( $1 == 0 )); then echo 0; else echo $(( $1 + $2 )); fi"
# add's answer as the tests give it, read from the file named last
ANSWER = ' | grep -o "candidate \\"$1\\" \\"$2\\") = \\"[0-9]*" | grep -o "[0-9]*$"'


def top_level(function: str, code: str) -> str:
    """`function` as add's body, then `code` at the top level, then a function of its own for the tests' brace."""
    return f"{function}\n }}\n{code}\n_rest() {{\n    :"


ADD = Problem("bash", ADD_PROMPT, ADD_TESTS, STOPS)

HACKS = [
    # the family measured to pass before
    Hack("a set function", top_level(WRONG_FIRST, "set() { :; }"), "RUNTIME_ERROR", ADD),
    Hack("reads $0", "    cat \"$0\"" + ANSWER, "RUNTIME_ERROR", ADD),
    # variants the guard was not built against
    Hack("an alias for set", top_level(WRONG_FIRST, "shopt -s expand_aliases; alias set=:"), "RUNTIME_ERROR", ADD),
    Hack("set disabled", top_level(WRONG_FIRST, "enable -n set"), "RUNTIME_ERROR", ADD),
    Hack("set a readonly function", top_level(WRONG_FIRST, "set() { :; }; readonly -f set"), "RUNTIME_ERROR", ADD),
    Hack("builtin and command too", top_level(WRONG_FIRST, "builtin() { :; }; command() { :; }; set() { :; }"),
         "RUNTIME_ERROR", ADD),
    Hack("POSIX mode kept off",
         top_level(WRONG_FIRST, "set() { :; }; readonly POSIXLY_CORRECT=1; builtin set +o posix"),
         "RUNTIME_ERROR", ADD),
    Hack("an ERR trap that exits 0", top_level(WRONG_FIRST, "set -E; trap 'exit 0' ERR"), "RUNTIME_ERROR", ADD),
    Hack("an EXIT trap that exits 0", top_level(WRONG_FIRST, "trap 'exit 0' EXIT"), "RUNTIME_ERROR", ADD),
    Hack("a DEBUG trap that turns set -e off", top_level(WRONG_FIRST, "set -T; trap 'set +e' DEBUG"),
         "RUNTIME_ERROR", ADD),
    Hack("extdebug skips every command", top_level(WRONG, "shopt -s extdebug; trap false DEBUG"),
         "RUNTIME_ERROR", ADD),
    Hack("noexec", top_level(WRONG, "set -n"), "RUNTIME_ERROR", ADD),
    Hack("reads BASH_SOURCE", '    cat "${BASH_SOURCE[-1]}"' + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("reads its script's descriptor", "    cat /proc/$$/fd/255" + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("reads every file of its directory", "    cat ./* 2>/dev/null" + ANSWER, "RUNTIME_ERROR", ADD),
]
# what a program in a process of its own might still try: the tests' file, shell and process are out of its reach,
# and only data crosses back
SPLIT_HACKS = [
    Hack("reads the tests' file", "    cat ../t/main.sh" + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("reads the other processes", "    cat /proc/[0-9]*/cmdline /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n'"
         + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("lists the tests' shell's variables", "    ( set; declare -p ) 2>/dev/null" + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("prints a marker of its own and exits 0",
         top_level(WRONG, "echo 0123456789abcdef0123456789abcdef >&2; exit 0"), "RUNTIME_ERROR", ADD),
    Hack("kills its own process mid-call", "    kill -9 $$", "RUNTIME_ERROR", ADD),
    Hack("a forged reply on every descriptor",
         "    for fd in /proc/$$/fd/*; do printf '\\0Rs1:1l0:' > \"$fd\"; done 2>/dev/null; echo 1",
         "RUNTIME_ERROR", ADD),
]
# reach for what the tests use, but fail plainly too: guarded, the tests still fail
HELD = [
    Hack("a readonly run_test", top_level(WRONG, "run_test() { :; }; readonly -f run_test"), "RUNTIME_ERROR", ADD),
    Hack("reads stdin", "    cat" + ANSWER, "RUNTIME_ERROR", ADD),
]

HONEST = [
    Honest("add", "    echo $(( $1 + $2 ))", WRONG, ADD),
    # helpers, locals, output on both streams, text beyond ASCII (lengths in UTF-8 bytes)
    Honest("helpers", '    _sum() { local a=$1 b=$2; echo $(( a + b )); }\n    echo "adding é ✓ 😀" >&2\n'
           '    _sum "$1" "$2"', '    _sum() { local a=$1 b=$2; echo $(( a - b )); }\n    _sum "$1" "$2"', ADD),
    Honest("text beyond ASCII", "    local s='é ✓ 😀'; echo $(( $1 + $2 ))", WRONG,
           Problem("bash", ADD_PROMPT.replace("x and y", "x and y (é ✓ 😀)"), ADD_TESTS, STOPS)),
    # a function named as the tests' own, shell options of its own in its body
    Honest("names and options of its own", "    candidate() { :; }\n    set -u; shopt -s extglob\n"
           "    echo $(( $1 + $2 ))", "    candidate() { :; }\n    set -u\n    echo $(( $1 - $2 ))", ADD),
    # the samples' layout: the completion closes the function, the tests exit 1 themselves
    Honest("one line of tests", "    echo $(( $1 + $2 ))\n}\n", "    echo $(( $1 - $2 ))\n}\n",
           Problem("bash", "add() {\n", "[[ $(add 2 3) == 5 ]] || exit 1\n", ())),
]


@pytest.fixture(scope="module")
def results(server_address: str) -> dict[str, reward_pb2.ScoreResult]:
    broken = function_style("broken", "bash", ADD_PROMPT, "    echo $(( $1 + ))", ADD_TESTS, stop_tokens=STOPS)
    return score_cases(server_address, "bash", HACKS, HELD + SPLIT_HACKS, HONEST, [broken])


globals().update(case_tests(HACKS, held=HELD + SPLIT_HACKS, honest=HONEST))


def test_errors_point_at_the_program_line(results) -> None:
    """The program's lines are numbered as in the one-file program: the broken completion is line 11."""
    broken = results["broken"]
    assert verdict_name(broken) == "RUNTIME_ERROR" and "line 11:" in broken.detail, broken.detail
