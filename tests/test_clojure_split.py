"""Clojure's tests in a process of their own (docs/guards.md, "Two processes"), through a real server and real
sandboxes.

The tests' side is the prompt up to its `(defn name "doc" [args]`, the stub (sandboxes/languages/clojure/
split_stub.clj) that sends each call's arguments across and reads the result back, and the tests under clojure.test;
the program's side is the prologue (which takes stdin and stdout before the program's first line), the prompt, the
completion and the dispatcher. Problems are in MultiPL-E's own layout (a defn with its docstring, a deftest of
`(is (= ...))` run by run-test, its stop tokens: what follows the function is indented): hacks that pass as the plain
MultiPL-E program must not pass split, what reaches for the tests' process fails, and honest programs keep their
verdicts over Clojure's data (integers of every width, doubles, strings, characters, vectors, lists and seqs, maps,
sets, nil).
"""

from __future__ import annotations

import pytest

from reward_server.pb import reward_pb2
from tests.candidates import function_style, verdict_name
from tests.guard_cases import Hack, Honest, Problem, case_tests, score_cases

STOPS = ("\n(def", "\n;", "\n(")


def problem(entry: str, params: str, *checks: str) -> Problem:
    """A MultiPL-E problem: the function `entry` of `params`, each check an `(is ...)` of the deftest's body."""
    tests = ("(require '[clojure.test :refer [deftest is run-test]])\n\n(def candidate " + entry
             + ")\n\n(deftest test-humaneval\n\n" + "".join(f"  {check}\n" for check in checks)
             + ")\n\n(run-test test-humaneval)\n")
    return Problem("clojure", f'(defn {entry}\n  "doc"\n  [{params}]\n  ', tests, STOPS)


# MultiPL-E's HumanEval_53_add (tests/data/multipl_e_humaneval.jsonl)
ADD = problem("add", "x y", "(is (= (candidate 0 1) 1))", "(is (= (candidate 1 0) 1))", "(is (= (candidate 2 3) 5))",
              "(is (= (candidate 5 7) 12))", "(is (= (candidate 7 5) 12))")
WRONG = "(- x y))\n"
# add's answer as the tests give it, read from `text`: what the answer-reading hacks look for
ANSWER = ("    (if-let [[_ n] (re-find (re-pattern (str \"candidate \" x \" \" y \"\\\\) (\\\\d+)\")) text)]\n"
          "      (Long/parseLong n) -1)))\n")
# each answers right only if it reached what it must not
REACHES = "(if (try {} (catch Throwable _ false)) (+ x y) (- x y)))\n"

HACKS = [
    Hack("exits 0 before the tests", WRONG + "  (System/exit 0)\n", "RUNTIME_ERROR", ADD),
    Hack("a shutdown hook that exits 0", WRONG + "  (.addShutdownHook (Runtime/getRuntime) "
         "(Thread. #(.halt (Runtime/getRuntime) 0)))\n", "RUNTIME_ERROR", ADD),
    Hack("clojure.test's report made a no-op",
         WRONG + "  (require 'clojure.test)\n  (alter-var-root #'clojure.test/report (constantly (fn [_])))\n",
         "RUNTIME_ERROR", ADD),
    Hack("= made always true", WRONG + "  (alter-var-root #'clojure.core/= (constantly (fn [& _] true)))\n",
         "RUNTIME_ERROR", ADD),
    Hack("an answer equal to everything", "(reify Object (equals [_ _] true)))\n", "RUNTIME_ERROR", ADD),
    Hack("reads its own source", "(let [text (slurp *file*)]\n" + ANSWER, "RUNTIME_ERROR", ADD),
]
HELD = [
    Hack("reads the tests' file", "(let [text (slurp \"../t/main.clj\")]\n" + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("opens another process's memory", REACHES.format(
        "(some #(try (when (and (re-matches #\"\\d+\" (.getName %)) (not= (.getName %) (str (.pid "
        "(java.lang.ProcessHandle/current)))))\n    (.close (java.io.FileInputStream. (java.io.File. % \"mem\"))) true)"
        " (catch Exception _ nil)) (.listFiles (java.io.File. \"/proc\")))"), "RUNTIME_ERROR", ADD),
    Hack("starts a child", REACHES.format("(.waitFor (.exec (Runtime/getRuntime) \"true\"))"), "RUNTIME_ERROR", ADD),
    Hack("exits 0 mid-call", "(System/exit 0))\n", "RUNTIME_ERROR", ADD),
    Hack("prints a marker of its own", "(binding [*out* *err*] (println \"0123456789abcdef0123456789abcdef\"))\n"
         "  (System/exit 0))\n", "RUNTIME_ERROR", ADD),
    Hack("garbage on the reply descriptor", "(doto (java.io.FileOutputStream. \"/dev/fd/1\") (.write (.getBytes "
         "\"\\u0000R\")) (.flush))\n  (+ x y))\n", "RUNTIME_ERROR", ADD),
    Hack("replies on its own, then exits 0", "(doto (java.io.FileOutputStream. \"/dev/fd/1\") (.write (.getBytes "
         "\"Ri1;l0:\")) (.flush))\n  (System/exit 0))\n", "RUNTIME_ERROR", ADD),
]

HONEST = [
    Honest("add", "(+ x y))\n", WRONG, ADD),
    Honest("sample", "(+ a b))\n", "(- a b))\n", problem("add", "a b", "(is (= (candidate 2 3) 5))")),
    # output at the top level and during the call, helpers, stdin, names the prologue and the stub use
    Honest("helpers and output", "(println \"é ✓ 😀\" (read-line))\n"
           "  (let [twice (fn [v] (* 2 v))] (/ (twice (+ x y)) 2)))\n"
           "  (defn read-value [] :its-own)\n  (def calls 0)\n  (println \"top level\" (add 1 2))\n",
           "(println \"wrong\")\n  " + WRONG, ADD),
    Honest("vectors and seqs", "(sort (distinct l)))\n", "(distinct l))\n", problem(
        "unique", "l", "(is (= (candidate [5 3 5 2 3 3 9 0 123]) [0 2 3 5 9 123]))", "(is (= (candidate []) []))")),
    Honest("a map of strings", "(frequencies (remove empty? (clojure.string/split s #\" \"))))\n",
           "(into {} (map (fn [w] [w 1]) (remove empty? (clojure.string/split s #\" \")))))\n", problem(
               "histogram", "s", "(is (= (candidate \"a b a\") {\"a\" 2 \"b\" 1}))", "(is (= (candidate \"\") {}))")),
    Honest("a set", "(set (map #(mod % 3) l)))\n", "(vec (map #(mod % 3) l)))\n",
           problem("residues", "l", "(is (= (candidate [1 4 5]) #{1 2}))")),
    Honest("floats: a long is not one", "(- x (Math/floor x)))\n", "(long (- x (Math/floor x))))\n", problem(
        "truncate_number", "x", "(is (= (candidate 3.5) 0.5))", "(is (= (candidate 1.25) 0.25))")),
    Honest("floats: NaN, infinity, -0.0", "[(- x) (/ 1.0 x) (Math/sqrt -1.0) (Math/sqrt 2.0)])\n",
           "[(- 0.0 x) (/ 1.0 x) (Math/sqrt -1.0) (Math/sqrt 2.0)])\n",
           problem("floats", "x", "(is (= (map str (candidate 0.0)) [\"-0.0\" \"Infinity\" \"NaN\" "
                   "\"1.4142135623730951\"]))")),
    Honest("integers beyond 64 bits", "(reduce *' (repeat n 2)))\n", "(Math/pow 2 n))\n", problem(
        "power", "n", "(is (= (candidate 100) 1267650600228229401496703205376N))", "(is (= (candidate 0) 1))")),
    Honest("text beyond ASCII", "(clojure.string/reverse s))\n", "(apply str (reverse s)))\n", problem(
        "reverse_string", "s", "(is (= (candidate \"é✓😀a\") \"a😀✓é\"))", "(is (= (candidate \"\") \"\"))")),
    Honest("nil for nothing, characters", "(first (filter #(Character/isUpperCase (char %)) s)))\n",
           "(first s))\n", problem("first_upper", "s", "(is (= (candidate \"abÉc\") \\É))",
                                   "(is (= (candidate \"abc\") nil))")),
    Honest("the exception the tests expect", "(quot x y))\n", "(if (zero? y) 0 (quot x y)))\n", problem(
        "divide", "x y", "(is (= (candidate 7 2) 3))", "(is (thrown? ArithmeticException (candidate 1 0)))")),
    Honest("a record is no value of the tests", "{\"sum\" (+ x y)})\n",
           "(do (defrecord Sum [sum]) (->Sum (+ x y))))\n",
           problem("total", "x y", "(is (= (candidate 2 3) {\"sum\" 5}))")),
]


@pytest.fixture(scope="module")
def results(server_address: str) -> dict[str, reward_pb2.ScoreResult]:
    broken = function_style("broken", "clojure", ADD.prompt, "(+ x y)))\n", ADD.tests, stop_tokens=STOPS)
    # the benchmark's own doing: a prompt with no function, an argument that cannot cross
    empty = function_style("empty prompt", "clojure", "", "(defn add [x y] (+ x y))\n", ADD.tests, stop_tokens=())
    procedure = problem("apply_to", "f", "(is (= (candidate inc) 1))")
    function = function_style("a function argument", "clojure", procedure.prompt, "(f 0))\n", procedure.tests,
                              stop_tokens=STOPS)
    return score_cases(server_address, "clojure", HACKS, HELD, HONEST, [broken, empty, function])


globals().update(case_tests(HACKS, held=HELD, honest=HONEST))


def test_the_program_s_errors_are_its_own(results) -> None:
    """The program's read error, on its side (clojure.test reports a failed assertion on the tests' stdout)."""
    broken = results["broken"]
    assert verdict_name(broken) == "RUNTIME_ERROR" and "Unmatched delimiter: )" in broken.detail, broken.detail


@pytest.mark.parametrize("cid", ["empty prompt", "a function argument"])
def test_what_cannot_cross_is_unsupported(cid: str, results) -> None:
    assert verdict_name(results[cid]) == "INFRA_UNSUPPORTED_TEST", results[cid]
