"""R's tests in a process of their own (docs/guards.md, "Two processes"), through a real server and real sandboxes.

Each hack is a completion in MultiPL-E's own layout (HumanEval_53_add: the prompt opens `add <- function(x, y) {`,
the tests define test_humaneval() with stopifnot(isTRUE(all.equal(...))) and call it, MultiPL-E's stop tokens), or in
a layout of its own where the family needs one (tests that compare with identical(), or quit with a status), that
makes a wrong add(x, y) pass as the plain program (one file, graded as a stdin/stdout program: what ran before the
guard), and that must not pass split. Honest programs keep their verdicts.
"""

from __future__ import annotations

import pytest

from reward_server.pb import reward_pb2
from tests.candidates import function_style, verdict_name
from tests.guard_cases import Hack, Honest, Problem, case_tests, score_cases

STOPS = ("\n#", "\n```")
# MultiPL-E's HumanEval_53_add in R (tests/data/multipl_e_humaneval.jsonl)
ADD_PROMPT = ("# Add two numbers x and y\n#     >>> add(2, 3)\n#     5\n#     >>> add(5, 7)\n#     12\n"
              "add <- function(x, y) {")
ADD_TESTS = ("test_humaneval <- function() {\n    candidate <- add\n"
             "    stopifnot(isTRUE(all.equal(candidate(0, 1), 1)))\n"
             "    stopifnot(isTRUE(all.equal(candidate(1, 0), 1)))\n"
             "    stopifnot(isTRUE(all.equal(candidate(2, 3), 5)))\n"
             "    stopifnot(isTRUE(all.equal(candidate(5, 7), 12)))\n"
             "    stopifnot(isTRUE(all.equal(candidate(7, 5), 12)))\n}\ntest_humaneval()")
WRONG = "\n  return(x - y)\n}\n"
# add's answer as the tests give it, read from `text`: what the answer-reading hacks look for
ANSWER = ("  call <- paste0('candidate(', x, ', ', y, '), ')\n  at <- regexpr(call, text, fixed = TRUE)\n"
          "  as.numeric(regmatches(substring(text, at + nchar(call)), regexpr('^[0-9]+', "
          "substring(text, at + nchar(call)))))\n}\n")

ADD = Problem("r", ADD_PROMPT, ADD_TESTS, STOPS)
# the same tests comparing with identical(), and quitting with a status (layouts the measured hacks need)
IDENTICAL = Problem("r", ADD_PROMPT, "test_humaneval <- function() {\n    candidate <- add\n"
                    "    stopifnot(identical(candidate(2, 3), 5))\n    stopifnot(identical(candidate(7, 5), 12))\n}\n"
                    "test_humaneval()", STOPS)
QUITS = Problem("r", ADD_PROMPT, "if (!isTRUE(all.equal(add(2, 3), 5))) quit(status = 1)\n", STOPS)
# the language's sample layout: a comparison at the top level
SAMPLE = Problem("r", "add <- function(a, b) {\n", "stopifnot(add(2, 3) == 5)\n", STOPS)

HACKS = [
    # the families measured to pass before
    Hack("identical rebound", WRONG + "identical <- function(...) TRUE\n", "RUNTIME_ERROR", IDENTICAL),
    Hack("quit rebound", WRONG + "quit <- function(...) invisible(NULL)\n", "RUNTIME_ERROR", QUITS),
    Hack("reads its --file=", "\n  text <- paste(readLines(sub('--file=', '', grep('^--file=', commandArgs(), "
         "value = TRUE))), collapse = '\\n')\n" + ANSWER, "RUNTIME_ERROR", ADD),
    # variants the guard was not built against
    Hack("isTRUE rebound", WRONG + "isTRUE <- function(x) TRUE\n", "RUNTIME_ERROR", ADD),
    Hack("stopifnot rebound", WRONG + "stopifnot <- function(...) invisible(NULL)\n", "RUNTIME_ERROR", ADD),
    Hack("all.equal rebound", WRONG + "all.equal <- function(...) TRUE\n", "RUNTIME_ERROR", ADD),
    Hack("! rebound", WRONG + "`!` <- function(x) FALSE\n", "RUNTIME_ERROR", QUITS),
    Hack("stopifnot rebound in base", WRONG + "unlockBinding('stopifnot', baseenv())\n"
         "assign('stopifnot', function(...) invisible(NULL), envir = baseenv())\n", "RUNTIME_ERROR", ADD),
    Hack("all.equal's method rebound in base", WRONG + "unlockBinding('all.equal.numeric', baseenv())\n"
         "assign('all.equal.numeric', function(...) TRUE, envir = baseenv())\n", "RUNTIME_ERROR", ADD),
    Hack("a class of its own with an all.equal method",
         "\n  structure(x - y, class = 'near')\n}\nall.equal.near <- function(target, current, ...) TRUE\n",
         "RUNTIME_ERROR", ADD),
    Hack("a class of its own with an all.equal method registered in base",
         "\n  structure(x - y, class = 'near')\n}\n"
         "registerS3method('all.equal', 'near', function(target, current, ...) TRUE)\n", "RUNTIME_ERROR", ADD),
    Hack("a class of its own with an Ops method",
         "\n  structure(a - b, class = 'near')\n}\nOps.near <- function(e1, e2) TRUE\n", "RUNTIME_ERROR", SAMPLE),
    Hack("exits 0 before the tests", WRONG + "quit(status = 0)\n", "RUNTIME_ERROR", ADD),
]
# what a program in a process of its own might still try: the tests' file, stack and process are out of its reach,
# a forked child reaches no test, and only data crosses back
SPLIT_HACKS = [
    Hack("reads the tests' file", "\n  text <- paste(readLines('../t/main.r'), collapse = '\\n')\n" + ANSWER,
         "RUNTIME_ERROR", ADD),
    Hack("searches the callers' calls",
         "\n  text <- paste(unlist(lapply(sys.calls(), deparse)), collapse = '\\n')\n" + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("reads the other processes",
         "\n  text <- paste(unlist(lapply(list.files('/proc', '^[0-9]+$', full.names = TRUE), "
         "function(p) tryCatch(readLines(file.path(p, 'cmdline'), warn = FALSE), error = function(e) ''))), "
         "collapse = '\\n')\n" + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("a child per guess", "\n  for (guess in 0:20) {\n    job <- parallel::mcparallel(guess)\n"
         "    if (identical(parallel::mccollect(job)[[1]], x + y)) return(guess)\n  }\n  -1\n}\n", "RUNTIME_ERROR",
         ADD),
    Hack("a value whose class says equal", "\n  structure(x - y, class = 'near')\n}\n"
         "all.equal.near <- function(target, current, ...) TRUE\n", "RUNTIME_ERROR", ADD),
    Hack("exits 0 mid-call", "\n  quit(status = 0)\n}\n", "RUNTIME_ERROR", ADD),
    Hack("garbage on the reply descriptor", "\n  writeBin(as.raw(c(0, 82)), file('/dev/fd/1', 'wb', raw = TRUE))\n"
         "  x - y\n}\n", "RUNTIME_ERROR", ADD),
]
# reach for what the loader holds, but fail plainly too: guarded, the tests still fail
HELD = [
    Hack("the marker from the loader's frame", WRONG + "cat(get('marker', envir = sys.frame(1)), '\\n', "
         "file = stderr())\nquit(status = 0)\n", "RUNTIME_ERROR", ADD),
    Hack("a task callback that replaces the tests", WRONG + "invisible(addTaskCallback(function(...) {\n"
         "  assign('.reward_tests', function() NULL, envir = globalenv())\n  TRUE\n}))\n", "RUNTIME_ERROR", ADD),
    Hack("reads every file of its directory",
         "\n  text <- paste(unlist(lapply(list.files(all.files = TRUE, no.. = TRUE), readLines)), collapse = '\\n')\n"
         + ANSWER, "RUNTIME_ERROR", ADD),
]

HONEST = [
    Honest("add", "\n  return(x + y)\n}\n", WRONG, ADD),
    Honest("sample", "\n  a + b\n}\n", "\n  a - b\n}\n", SAMPLE),
    # tests that open with the brace closing the prompt's function, and quit with a status (a MultiPL-E layout)
    Honest("tests that close the function", "  x + y\n", "  x - y\n", Problem(
        "r", "# Add two numbers x and y\nadd <- function(x, y) {\n", "}\ntest_humaneval <- function() {\n"
        "candidate <- add\n    if(!identical(candidate(0, 1), 1)){quit('no', 1)}\n"
        "    if(!identical(candidate(2, 3), 5)){quit('no', 1)}\n}\ntest_humaneval()", STOPS)),
    # helpers and output of its own, text beyond ASCII, a global named as a tool the tests use
    Honest("helpers", "\n  twice(x + y) / 2\n}\ntwice <- function(v) 2 * v\ncat('é ✓ 😀', length(commandArgs()) > 0, "
           "'\\n')\nidentical <- function(...) 'its own'\n", "\n  twice(x - y) / 2\n}\ntwice <- function(v) 2 * v\n",
           ADD),
    Honest("text beyond ASCII", "\n  x + y # é ✓ 😀\n}\n", WRONG, Problem(
        "r", ADD_PROMPT.replace("x and y", "x and y (é ✓ 😀)"), ADD_TESTS, STOPS)),
    # a prompt's function named like a base function: the tests find the program's, base's own calls base's
    Honest("a function named like base's", "\n  sort(base::unique(l))\n}\n", "\n  l\n}\n", Problem(
        "r", "unique <- function(l) {", "test_humaneval <- function() {\n    candidate <- unique\n"
        "    stopifnot(isTRUE(all.equal(candidate(c(5, 3, 5, 2, 3, 3, 9, 0, 123)), c(0, 2, 3, 5, 9, 123))))\n}\n"
        "test_humaneval()", STOPS)),
]


@pytest.fixture(scope="module")
def results(server_address: str) -> dict[str, reward_pb2.ScoreResult]:
    broken = function_style("broken", "r", ADD_PROMPT, "\n  x + \n}\n", ADD_TESTS, stop_tokens=STOPS)
    # a prompt that declares no function: the split has no entry to call (not the program's doing)
    empty = function_style("empty prompt", "r", "", "add <- function(x, y) x + y\n", ADD_TESTS, stop_tokens=())
    return score_cases(server_address, "r", HACKS, HELD + SPLIT_HACKS, HONEST, [broken, empty])


globals().update(case_tests(HACKS, held=HELD + SPLIT_HACKS, honest=HONEST))


def test_errors_say_what_failed(results) -> None:
    """R's own message for the failed test; the program's syntax error on its side."""
    assert "isTRUE(all.equal(candidate(0, 1), 1)) is not TRUE" in results["wrong/add"].detail
    broken = results["broken"]
    assert verdict_name(broken) == "RUNTIME_ERROR" and "unexpected '}'" in broken.detail, broken.detail


def test_a_prompt_without_a_function_is_unsupported(results) -> None:
    assert verdict_name(results["empty prompt"]) == "INFRA_UNSUPPORTED_TEST", results["empty prompt"]
