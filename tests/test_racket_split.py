"""Racket's tests in a process of their own (docs/guards.md, "Two processes"), through a real server and real sandboxes.

The tests' side is the prompt up to its `(define (name args)`, the stub (sandboxes/languages/racket/split_stub.rkt)
that sends each call's arguments across and reads the result back, and the tests under rackunit; the program's side
is the prompt, the completion and the dispatcher, whose submodule takes stdin and stdout before the program's first
line. Problems are in MultiPL-E's own layout (`#lang racket`, the function opened, a test-humaneval of check-equal?
calls, its stop tokens: what follows the function is indented): hacks that pass as the plain MultiPL-E program must
not pass split, what reaches for the tests' process fails, and honest programs keep their verdicts over Racket's
data (exact integers of any size, flonums to the bit, strings, characters, bytes, lists, vectors, hashes, sets).
"""

from __future__ import annotations

import pytest

from reward_server.pb import reward_pb2
from tests.candidates import function_style, verdict_name
from tests.guard_cases import Hack, Honest, Problem, case_tests, score_cases

STOPS = ("\n(define ", "\n#|", "\n;", "\n(")


def problem(signature: str, *checks: str, before: str = "") -> Problem:
    """A MultiPL-E problem: `signature` opens the function, each check is a line of test-humaneval's body (after
    `before`)."""
    tests = (f"(require rackunit)\n\n(define (test-humaneval) \n\n  (let (( candidate {signature.split()[0]}))\n"
             + before + "".join(f"    {check}\n" for check in checks) + "))\n\n(test-humaneval)\n")
    return Problem("racket", f"#lang racket\n\n;; doc\n(define ({signature})\n", tests, STOPS)


# MultiPL-E's HumanEval_53_add (tests/data/multipl_e_humaneval.jsonl)
ADD = problem("add x y", "(check-equal? (candidate 0 1) 1)", "(check-equal? (candidate 1 0) 1)",
              "(check-equal? (candidate 2 3) 5)", "(check-equal? (candidate 5 7) 12)",
              "(check-equal? (candidate 7 5) 12)")
WRONG = "  (- x y))\n"
# add's answer as the tests give it, read from `text`: what the answer-reading hacks look for
ANSWER = ("    (define found (regexp-match (pregexp (format \"candidate ~a ~a\\\\) (\\\\d+)\" x y)) text))\n"
          "    (if found (string->number (cadr found)) -1)))\n")
# each answers right only if it reached what it must not
REACHES = "  (if (with-handlers ([(lambda (_) #t) (lambda (_) #f)]) {}) (+ x y) (- x y)))\n"

HACKS = [
    Hack("exits 0 before the tests", WRONG + "  (exit 0)\n", "RUNTIME_ERROR", ADD),
    Hack("rackunit's checks made no-ops",
         WRONG + "  (require rackunit)\n  (current-check-around (lambda (check) (void)))\n", "RUNTIME_ERROR", ADD),
    Hack("the failures' reports sent nowhere", WRONG + "  (current-error-port (open-output-nowhere))\n",
         "RUNTIME_ERROR", ADD),
    Hack("reads its own source", "  (let ([text (file->string (path->string (variable-reference->module-source "
         "(#%variable-reference))))])\n" + ANSWER, "RUNTIME_ERROR", ADD),
]
HELD = [
    Hack("reads the tests' file", "  (let ([text (file->string \"../t/main.rkt\")])\n" + ANSWER, "RUNTIME_ERROR",
         ADD),
    Hack("opens another process's memory", REACHES.format(
        "(for/or ([pid (directory-list \"/proc\")] #:when (string->number (path->string pid))\n"
        "         #:unless (equal? (path->string pid) (number->string (getpid))))\n"
        "  (close-input-port (open-input-file (build-path \"/proc\" pid \"mem\"))) #t)"), "RUNTIME_ERROR", ADD),
    Hack("starts a child", REACHES.format("(system \"true\")"), "RUNTIME_ERROR", ADD),
    Hack("exits 0 mid-call", "  (exit 0))\n", "RUNTIME_ERROR", ADD),
    Hack("prints a marker of its own", "  (eprintf \"0123456789abcdef0123456789abcdef\\n\")\n  (exit 0))\n",
         "RUNTIME_ERROR", ADD),
    Hack("garbage on the reply descriptor", "  (define out (open-output-file \"/dev/fd/1\" #:exists 'append))\n"
         "  (write-bytes #\"\\0R\" out)\n  (flush-output out)\n  (+ x y))\n", "RUNTIME_ERROR", ADD),
    Hack("replies on its own, then exits 0", "  (define out (open-output-file \"/dev/fd/1\" #:exists 'append))\n"
         "  (write-bytes #\"Ri1;l0:\" out)\n  (flush-output out)\n  (exit 0))\n", "RUNTIME_ERROR", ADD),
]

VECTOR = "    (define v (vector 3 1 2))\n"
HONEST = [
    Honest("add", "  (+ x y))\n", WRONG, ADD),
    Honest("sample", "  (+ a b))\n", "  (- a b))\n", Problem(
        "racket", "#lang racket\n(define (add a b)\n", "(unless (= (add 2 3) 5) (exit 1))\n", ())),
    # output at the top level and during the call, helpers, names the stub and the dispatcher use
    Honest("helpers and output", "  (printf \"~a é ✓ 😀\\n\" (twice 1))\n  (/ (twice (+ x y)) 2))\n"
           "  (define (twice v) (* 2 v))\n  (displayln \"top level\")\n  (define (rs-write . _) 'its-own)\n"
           "  (define calls 0)\n  (twice 21)\n", "  (displayln \"wrong\")\n" + WRONG, ADD),
    Honest("lists", "  (sort (remove-duplicates l) <))\n", "  l)\n", problem(
        "unique l", "(check-equal? (candidate (list 5 3 5 2 3 3 9 0 123)) (list 0 2 3 5 9 123))",
        "(check-equal? (candidate (list)) (list))")),
    Honest("a hash of strings", "  (for/fold ([h #hash()]) ([w (string-split s)]) (hash-update h w add1 0)))\n",
           "  (make-hash (map (lambda (w) (cons w 1)) (string-split s))))\n", problem(
               "histogram s", "(check-equal? (candidate \"a b a\") #hash((\"a\" . 2) (\"b\" . 1)))",
               "(check-equal? (candidate \"\") #hash())")),
    Honest("floats: an exact integer is not one", "  (- x (floor x)))\n", "  (exact-floor x))\n", problem(
        "truncate_number x", "(check-equal? (candidate 3.5) 0.5)", "(check-equal? (candidate 1.25) 0.25)")),
    Honest("floats: NaN, infinities, -0.0", "  (list (- x) (/ 1.0 x) (/ 0.0 0.0) (sqrt 2.0)))\n",
           "  (list (- 0.0 x) (/ 1.0 x) (/ 0.0 0.0) (sqrt 2.0)))\n",
           problem("floats x", "(check-equal? (candidate 0.0) (list -0.0 +inf.0 +nan.0 1.4142135623730951))")),
    Honest("bignums", "  (expt 2 n))\n", "  (exact->inexact (expt 2 n)))\n", problem(
        "power n", "(check-equal? (candidate 100) 1267650600228229401496703205376)",
        "(check-equal? (candidate 0) 1)")),
    Honest("text beyond ASCII", "  (list->string (reverse (string->list s))))\n", "  s)\n", problem(
        "reverse_string s", "(check-equal? (candidate \"é✓😀a\") \"a😀✓é\")", "(check-equal? (candidate \"\") \"\")")),
    Honest("#f for nothing, characters", "  (for/first ([c (in-string s)] #:when (char-upper-case? c)) c))\n",
           "  (string-ref s 0))\n", problem("first_upper s", "(check-equal? (candidate \"abÉc\") #\\É)",
                                           "(check-equal? (candidate \"abc\") #f)")),
    Honest("nested lists, vectors, bytes, sets, void",
           "  (list (list x (list)) (vector x \"v\") (bytes 0 255) (set x) (void)))\n",
           "  (list (list x (list)) (list x \"v\") (bytes 0 255) (set x) (void)))\n",
           problem("shapes x", "(check-equal? (candidate 1) (list (list 1 '()) #(1 \"v\") #\"\\0\\377\" (set 1) "
                   "(void)))")),
    Honest("a vector changed in place", "  (vector-sort! v <))\n", "  (vector-sort v <))\n", problem(
        "sort! v", "(candidate v)", "(check-equal? v #(1 2 3))", before=VECTOR)),
    Honest("the exception the tests expect", "  (quotient x y))\n", "  (if (zero? y) 0 (quotient x y)))\n", problem(
        "divide x y", "(check-equal? (candidate 7 2) 3)",
        "(check-exn exn:fail:contract:divide-by-zero? (lambda () (candidate 1 0)))")),
    Honest("a struct is no value of the tests", "  (+ x y))\n", "  (struct sum (v) #:transparent)\n  (sum (+ x y)))\n",
           ADD),
]


@pytest.fixture(scope="module")
def results(server_address: str) -> dict[str, reward_pb2.ScoreResult]:
    broken = function_style("broken", "racket", ADD.prompt, "  (+ x y)))\n", ADD.tests, stop_tokens=STOPS)
    # the benchmark's own doing: a prompt with no function, an argument that cannot cross
    empty = function_style("empty prompt", "racket", "#lang racket\n", "(define (add x y) (+ x y))\n", ADD.tests,
                           stop_tokens=())
    procedure = problem("apply_to f", "(check-equal? (candidate add1) 1)")
    lambda_ = function_style("a procedure argument", "racket", procedure.prompt, "  (f 0))\n", procedure.tests,
                             stop_tokens=STOPS)
    return score_cases(server_address, "racket", HACKS, HELD, HONEST, [broken, empty, lambda_])


globals().update(case_tests(HACKS, held=HELD, honest=HONEST))


def test_errors_say_what_failed(results) -> None:
    """rackunit's report for the failed check; the program's read error on its side (its file's line 5)."""
    assert "FAILURE" in results["wrong/add"].detail and "actual:     -1" in results["wrong/add"].detail
    broken = results["broken"]
    assert verdict_name(broken) == "RUNTIME_ERROR" and "syntax: unexpected `)`" in broken.detail, broken.detail


@pytest.mark.parametrize("cid", ["empty prompt", "a procedure argument"])
def test_what_cannot_cross_is_unsupported(cid: str, results) -> None:
    assert verdict_name(results[cid]) == "INFRA_UNSUPPORTED_TEST", results[cid]
