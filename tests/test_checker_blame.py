"""Who a checker's failure is blamed on, through a real server and real sandboxes (issue 28). A naive checker (a
dataset's `int()` of the output, a BigInt, an index taken from the output, a list as long as a number it read) that
accepts the test's reference answer and then crashes or outruns its limits on the program's output gives the program
WRONG_ANSWER, never INFRA; a checker broken on the reference answer itself is INFRA_CHECKER_ERROR; the reference runs
once per checker and test, for a whole group and for the next requests; the caller's deadline stays INFRA_DEADLINE."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterator

import pytest

from reward_server.graders.checkers import VERDICTS, finding, kept, on_output, on_reference
from reward_server.pb import reward_pb2
from reward_server.verdicts import Verdict
from sandboxes.policy import CPU_LIMIT
from sandboxes.results import RunResult, RunStatus
from tests.candidates import verdict_name
from tests.conftest import ServerHandle
from tests.test_checkers import score

# "Print the index (from 0) of a largest element": 1 and 3 are both right; the reference answer is 1.
INDEX_TESTS = [("4\n3 9 1 9\n", "1\n"), ("2\n5 2\n", "0\n")]
PY_INDEX = textwrap.dedent("""
    import sys
    _, input_file, output_file, answer_file = sys.argv
    n, *items = [int(token) for token in open(input_file).read().split()]
    got = int(open(output_file).read())     # garbage or 5,000 digits: ValueError
    want = int(open(answer_file).read())
    sys.exit(0 if items[got] == items[want] else 1)     # an index out of range: IndexError
    """)
JS_INDEX = textwrap.dedent("""
    const fs = require('fs');
    const [inputFile, outputFile, answerFile] = process.argv.slice(2);
    const [n, ...items] = fs.readFileSync(inputFile, 'utf8').trim().split(/\\s+/).map(BigInt);
    const got = BigInt(fs.readFileSync(outputFile, 'utf8').trim());   // garbage: SyntaxError
    const want = BigInt(fs.readFileSync(answerFile, 'utf8').trim());
    // out of range (5,000 digits: Infinity): undefined.toString() is a TypeError
    process.exit(items[Number(got)].toString() === items[Number(want)].toString() ? 0 : 1);
    """)
CPP_INDEX = textwrap.dedent("""
    #include <fstream>
    #include <string>
    #include <vector>
    int main(int argc, char** argv) {
        std::ifstream input(argv[1]), output(argv[2]), answer(argv[3]);
        int n = 0;
        input >> n;
        std::vector<long long> items(n);
        for (long long& item : items) input >> item;
        std::string got, want;
        output >> got;
        answer >> want;
        // std::stoi throws on garbage and on 5,000 digits, .at() out of range: uncaught, std::terminate aborts
        return items.at(std::stoi(got)) == items.at(std::stoi(want)) ? 0 : 1;
    }
    """)
INDEX_PROGRAMS = {   # Python programs: name -> (code, verdict)
    "first-largest": ("input()\nitems = input().split()\nprint(items.index(max(items, key=int)))\n", "PASS"),
    "last-largest": ("input()\nitems = [int(x) for x in input().split()]\n"
                     "print(max(i for i, x in enumerate(items) if x == max(items)))\n", "PASS"),
    "smallest": ("input()\nitems = [int(x) for x in input().split()]\nprint(items.index(min(items)))\n",
                 "WRONG_ANSWER"),
    "garbage": ("print('nine')\n", "WRONG_ANSWER"),
    "5000-digits": ("print('9' * 5000)\n", "WRONG_ANSWER"),
    "out-of-range": ("print(7)\n", "WRONG_ANSWER"),
    "negative-out-of-range": ("print(-9)\n", "WRONG_ANSWER"),
    "empty": ("pass\n", "WRONG_ANSWER"),
}

# "Print any permutation of 1..n": the reference answer is 1..n in order.
PERMUTATION_TESTS = [("3\n", "1 2 3\n")]
PERMUTATION_READ = textwrap.dedent("""
    import sys
    _, input_file, output_file, answer_file = sys.argv
    n = int(open(input_file).read())
    got = open(output_file).read().split()
    """)
FLOODED_CHECKERS = {   # name -> (a naive permutation checker, a program whose output it cannot take)
    # a count per value up to the largest: a list as long as a number the output names (its memory)
    "memory": (PERMUTATION_READ + textwrap.dedent("""
        counts = [0] * (max(int(token) for token in got) + 1)
        for token in got:
            counts[int(token)] += 1
        sys.exit(0 if len(got) == n and all(counts[v] == 1 for v in range(1, n + 1)) else 1)
        """), "print(1, 2, 3, 10 ** 8)\n"),
    # it prints what it read when it rejects it (its output limit)
    "echo": (PERMUTATION_READ + textwrap.dedent("""
        if sorted(got, key=int) != [str(v) for v in range(1, n + 1)]:
            print('not a permutation:', got)
            sys.exit(1)
        """), "print(' '.join(['1'] * 3_000_000))\n"),
    # duplicates looked up in a list (quadratic: its CPU time on an enormous output)
    "quadratic": (PERMUTATION_READ + textwrap.dedent("""
        seen = []
        for token in got:
            if token in seen:
                sys.exit(1)
            seen.append(token)
        sys.exit(0 if sorted(seen, key=int) == [str(v) for v in range(1, n + 1)] else 1)
        """), "print(*range(1, 400_001))\n"),
}


def candidate(cid: str, code: str, checker: reward_pb2.Checker, tests: list[tuple[str, str]],
              language: str = "python") -> reward_pb2.Candidate:
    return reward_pb2.Candidate(id=cid, code=reward_pb2.CodeTask(
        language=language, completion=code, checker=checker,
        io_tests=[reward_pb2.IOTest(stdin=stdin, expected_stdout=out) for stdin, out in tests]))


@pytest.fixture(scope="module")
def server() -> Iterator[ServerHandle]:
    handle = ServerHandle()
    yield handle
    handle.stop()


def reference_runs(server: ServerHandle) -> list[str]:
    return re.findall(r"checker \(\w+\) ran on a reference answer: \w+", server.stderr_text())


@pytest.mark.parametrize("checker", [reward_pb2.Checker(language="python", source=PY_INDEX),
                                     reward_pb2.Checker(language="javascript", source=JS_INDEX),
                                     reward_pb2.Checker(language="cpp", source=CPP_INDEX)],
                         ids=["python", "javascript", "cpp"])
def test_a_naive_checker_failing_on_the_output_is_the_programs_wrong_answer(
        server: ServerHandle, checker: reward_pb2.Checker) -> None:
    results = score(server, [candidate(name, code, checker, INDEX_TESTS) for name, (code, _) in INDEX_PROGRAMS.items()])
    for name, (_, verdict) in INDEX_PROGRAMS.items():
        assert verdict_name(results[name]) == verdict, (name, results[name])
        assert results[name].reward == (1.0 if verdict == "PASS" else 0.0)
    assert "the checker fails on this output, though it accepts the reference answer" in results["garbage"].detail
    assert results["smallest"].detail == "test 0: checker:"     # its own exit 1: its stderr (none), as before


@pytest.mark.parametrize("name", FLOODED_CHECKERS)
def test_a_checker_outrun_by_the_output_is_the_programs_wrong_answer(server: ServerHandle, name: str) -> None:
    source, flood = FLOODED_CHECKERS[name]
    checker = reward_pb2.Checker(language="python", source=source)
    results = score(server, [candidate("right", "print(3, 1, 2)\n", checker, PERMUTATION_TESTS),
                             candidate("flood", flood, checker, PERMUTATION_TESTS)])
    assert verdict_name(results["right"]) == "PASS", results["right"]
    assert verdict_name(results["flood"]) == "WRONG_ANSWER", results["flood"]
    assert "though it accepts the reference answer" in results["flood"].detail, results["flood"].detail


BROKEN_ON_THE_REFERENCE = [   # (language, checker source, what the detail says)
    ("python", PY_INDEX.replace("int(open(answer_file).read())", "int(open(answer_file).read().split()[1])"),
     "the checker fails on the reference answer"),
    ("python", PY_INDEX.replace("items[want]", "items[want + 1]"), "the checker rejects the reference answer"),
    ("python", "import sys\nsys.exit(3)\n", "exit code 3"),
    ("python", PY_INDEX.replace("sys.exit(0 if", "sys.exit(0 iff"), "the checker does not parse"),
    ("javascript", JS_INDEX.replace("BigInt(fs.readFileSync(answerFile", "JSON.parse(fs.readFileSync(inputFile"),
     "the checker fails on the reference answer"),
    ("javascript", JS_INDEX.replace("process.exit(items", "process.exit((items"), "the checker does not parse"),
    ("cpp", CPP_INDEX.replace("answer >> want;", "want = \"x\";"), "SIGABRT"),
]


@pytest.mark.parametrize(("language", "source", "detail"), BROKEN_ON_THE_REFERENCE)
def test_a_checker_broken_on_the_reference_answer_is_infra(server: ServerHandle, language: str, source: str,
                                                           detail: str) -> None:
    checker = reward_pb2.Checker(language=language, source=source)
    results = score(server, [candidate(name, INDEX_PROGRAMS[name][0], checker, INDEX_TESTS)
                             for name in ("last-largest", "garbage")])
    for name in ("last-largest", "garbage"):   # nobody is blamed, whatever the output
        assert verdict_name(results[name]) == "INFRA_CHECKER_ERROR", results[name]
        assert detail in results[name].detail, results[name].detail
        assert not results[name].HasField("reward")


def test_the_reference_runs_once_per_checker_and_test(server: ServerHandle) -> None:
    checker = reward_pb2.Checker(language="python", source=PY_INDEX + "# test_the_reference_runs_once\n")
    before = len(reference_runs(server))
    results = score(server, [candidate(name, code, checker, INDEX_TESTS) for name, (code, _) in INDEX_PROGRAMS.items()])
    assert {verdict_name(result) for result in results.values()} == {"PASS", "WRONG_ANSWER"}
    # eight candidates, two tests: two reference runs
    assert reference_runs(server)[before:] == ["checker (python) ran on a reference answer: accepted"] * 2
    # the next group of the same problem (other programs: the result cache does not answer them) runs none
    again = score(server, [candidate("again", "input()\ninput()\nprint(0)\n", checker, INDEX_TESTS)])
    assert verdict_name(again["again"]) == "WRONG_ANSWER", again["again"]
    assert len(reference_runs(server)) == before + 2
    # a test of its own is run once more
    other = score(server, [candidate("other", "input()\ninput()\nprint(0)\n", checker, [("1\n7\n", "0\n")])])
    assert verdict_name(other["other"]) == "PASS", other["other"]
    assert len(reference_runs(server)) == before + 3


def test_a_checker_cut_by_the_deadline_is_infra_deadline(server: ServerHandle) -> None:
    """A checker that computes on the program's output past the caller's deadline: not the program's fault."""
    spins = "import sys\nif open(sys.argv[2]).read() != open(sys.argv[3]).read():\n    while True:\n        pass\n"
    checker = reward_pb2.Checker(language="python", source=spins)
    results = score(server, [candidate("spun", "print(3, 1, 2)\n", checker, PERMUTATION_TESTS)], timeout=8)
    assert verdict_name(results["spun"]) == "INFRA_DEADLINE", results["spun"]


def run_result(status: RunStatus, detail: str = "", exit_code: int | None = None) -> RunResult:
    return RunResult(status, exit_code, b"", b"", 1.0, detail)


@pytest.mark.parametrize(("result", "on_the_reference", "on_the_output"), [
    (run_result(RunStatus.OK, exit_code=0), "PASS", "PASS"),
    (run_result(RunStatus.EXIT_NONZERO, "exit code 1", 1), "INFRA_CHECKER_ERROR", "WRONG_ANSWER"),
    (run_result(RunStatus.EXIT_NONZERO, "exit code 3", 3), "INFRA_CHECKER_ERROR", "WRONG_ANSWER"),
    (run_result(RunStatus.EXIT_NONZERO, "killed by SIGABRT"), "INFRA_CHECKER_ERROR", "WRONG_ANSWER"),
    (run_result(RunStatus.TIMEOUT, CPU_LIMIT), "INFRA_CHECKER_ERROR", "WRONG_ANSWER"),
    (run_result(RunStatus.MEMORY_LIMIT, "killed by the OOM killer"), "INFRA_CHECKER_ERROR", "WRONG_ANSWER"),
    (run_result(RunStatus.OUTPUT_LIMIT, "stdout/stderr limit"), "INFRA_CHECKER_ERROR", "WRONG_ANSWER"),
    # stopped on the wall clock with CPU time to spare: kept waiting (a busy machine), not what it read
    (run_result(RunStatus.TIMEOUT, "wall-clock backstop (46 s = 3 x the timeout + 1 s)"), "INFRA_OVERLOADED",
     "INFRA_OVERLOADED"),
    (run_result(RunStatus.DEADLINE, "the caller's deadline cut the run short"), "INFRA_DEADLINE", "INFRA_DEADLINE"),
    (run_result(RunStatus.SANDBOX_ERROR, "the sandbox was killed from outside"), "INFRA_SANDBOX_ERROR",
     "INFRA_SANDBOX_ERROR"),
])
def test_the_rule_reads_every_ending(result: RunResult, on_the_reference: str, on_the_output: str) -> None:
    assert on_reference(result).verdict.name == on_the_reference
    assert on_output(result).verdict.name == on_the_output
    # a reference finding is kept exactly when it is the checker's own doing
    assert kept(finding(result)) == (not Verdict[on_the_output].is_infra)


def test_the_rule_covers_every_status() -> None:
    assert {finding(run_result(status, CPU_LIMIT, 1)) for status in RunStatus} <= set(VERDICTS)
