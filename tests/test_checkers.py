"""Checkers (testlib's protocol) through a real server and real sandboxes: a checker that accepts any valid
permutation, in C++, Python and JavaScript, broken checkers (INFRA, never the model's fault: one that does not compile
or parse, or fails on the reference answer), deliberate exits 1 and 2 (wrong answers), and one compile per request.
Failures on the program's output alone: tests/test_checker_blame.py."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterator

import grpc
import pytest

from reward_server.pb import reward_pb2, reward_pb2_grpc
from tests.candidates import verdict_name
from tests.conftest import ServerHandle

# "Print any permutation of 1..n": the expected output is one of many right ones.
TESTS = [("3\n", "1 2 3\n"), ("1\n", "1\n")]

CPP_CHECKER = textwrap.dedent("""
    #include <cstdio>
    #include <fstream>
    #include <set>
    int main(int argc, char** argv) {   // checker input output answer; exit 0 OK, 1 WA, 2 PE, 3 FAIL
        if (argc != 4) return 3;
        std::ifstream input(argv[1]), output(argv[2]), answer(argv[3]);
        long long n = 0, x = 0, count = 0, jury = 0;
        if (!(input >> n)) return 3;
        while (answer >> x) ++jury;
        if (jury != n) return 3;         // the answer file is the third argument
        std::set<long long> seen;
        while (output >> x) {
            if (x < 1 || x > n || !seen.insert(x).second) {
                std::fprintf(stderr, "wrong answer: %lld repeats or is outside 1..%lld\\n", x, n);
                return 1;
            }
            ++count;
        }
        if (!output.eof()) {
            std::fprintf(stderr, "presentation error: not a number\\n");
            return 2;
        }
        if (count != n) {
            std::fprintf(stderr, "wrong answer: %lld numbers for n = %lld\\n", count, n);
            return 1;
        }
        return 0;
    }
    """)
PYTHON_CHECKER = textwrap.dedent("""
    import sys
    _, input_file, output_file, answer_file = sys.argv
    n = int(open(input_file).read())
    assert len(open(answer_file).read().split()) == n
    try:
        got = [int(token) for token in open(output_file).read().split()]
    except ValueError:
        sys.exit(2)
    sys.exit(0 if sorted(got) == list(range(1, n + 1)) else 1)
    """)
JAVASCRIPT_CHECKER = textwrap.dedent("""
    const fs = require('fs');
    const [inputFile, outputFile, answerFile] = process.argv.slice(2);
    const n = Number(fs.readFileSync(inputFile, 'utf8'));
    if (fs.readFileSync(answerFile, 'utf8').trim().split(/\\s+/).length !== n) throw new Error('a bad answer file');
    const got = fs.readFileSync(outputFile, 'utf8').trim().split(/\\s+/).map(Number);
    if (got.some(Number.isNaN)) process.exit(2);
    got.sort((a, b) => a - b);
    process.exit(got.length === n && got.every((v, i) => v === i + 1) ? 0 : 1);
    """)
PROGRAMS = {   # Python programs: name -> (code, verdict)
    "in-order": ("n = int(input())\nprint(*range(1, n + 1))\n", "PASS"),
    "reversed": ("n = int(input())\nprint(*range(n, 0, -1))\n", "PASS"),
    "repeats": ("n = int(input())\nprint(*[1] * n)\n", "WRONG_ANSWER"),
    "not-numbers": ("input()\nprint('one two')\n", "WRONG_ANSWER"),
    "crashes": ("raise SystemExit(4)\n", "RUNTIME_ERROR"),
}
CPP_REVERSED = "#include <cstdio>\nint main() { int n; std::scanf(\"%d\", &n); while (n) std::printf(\"%d \", n--); }\n"


def candidate(cid: str, language: str, code: str, checker: reward_pb2.Checker,
              tests: list[tuple[str, str]] = TESTS, **fields) -> reward_pb2.Candidate:
    return reward_pb2.Candidate(id=cid, code=reward_pb2.CodeTask(
        language=language, completion=code, checker=checker,
        io_tests=[reward_pb2.IOTest(stdin=stdin, expected_stdout=out) for stdin, out in tests], **fields))


@pytest.fixture(scope="module")
def server() -> Iterator[ServerHandle]:
    handle = ServerHandle()
    yield handle
    handle.stop()


def score(server: ServerHandle, candidates: list[reward_pb2.Candidate],
          timeout: float = 300) -> dict[str, reward_pb2.ScoreResult]:
    with grpc.insecure_channel(server.address) as channel:
        reply = reward_pb2_grpc.RewardServiceStub(channel).Score(
            reward_pb2.ScoreRequest(candidates=candidates), timeout=timeout)
    return {result.id: result for result in reply.results}


def builds(server: ServerHandle) -> list[str]:
    return re.findall(r"checker \(\w+\) built once for .*", server.stderr_text())


@pytest.mark.parametrize("checker", [reward_pb2.Checker(language="cpp", source=CPP_CHECKER),
                                     reward_pb2.Checker(language="python", source=PYTHON_CHECKER),
                                     reward_pb2.Checker(language="javascript", source=JAVASCRIPT_CHECKER)],
                         ids=["cpp-checker", "python-checker", "javascript-checker"])
def test_a_checker_accepts_any_valid_permutation(server: ServerHandle, checker: reward_pb2.Checker) -> None:
    before = len(builds(server))
    candidates = [candidate(name, "python", code, checker) for name, (code, _) in PROGRAMS.items()]
    candidates.append(candidate("cpp-reversed", "cpp", CPP_REVERSED, checker))
    results = score(server, candidates)
    for name, (_, verdict) in PROGRAMS.items():
        assert verdict_name(results[name]) == verdict, results[name]
    assert verdict_name(results["cpp-reversed"]) == "PASS", results["cpp-reversed"]
    assert results["reversed"].reward == 1.0 and results["repeats"].reward == 0.0
    if checker.language == "cpp":
        assert "test 0: checker: wrong answer: 1 repeats" in results["repeats"].detail, results["repeats"].detail
    # the request's six candidates share one build of their checker (five reach it: one crashed first)
    assert builds(server)[before:] == [f"checker ({checker.language}) built once for 5 candidate(s), 10 check(s)"]


def test_each_test_has_its_verdict_and_the_first_failure_decides(server: ServerHandle) -> None:
    checker = reward_pb2.Checker(language="python", source=PYTHON_CHECKER)
    always_three = "input()\nprint(1, 2, 3)\n"
    tests = [("3\n", "1 2 3\n"), ("2\n", "1 2\n"), ("1\n", "1\n")]
    results = score(server, [candidate("all", "python", always_three, checker, tests, run_all_tests=True),
                             candidate("first", "python", always_three, checker, tests)])
    assert [verdict_name(t) for t in results["all"].tests] == ["PASS", "WRONG_ANSWER", "WRONG_ANSWER"]
    assert verdict_name(results["first"]) == "WRONG_ANSWER" and results["first"].detail.startswith("test 1:")


@pytest.mark.parametrize(("checker", "verdict", "detail"), [
    (reward_pb2.Checker(language="python", source="import sys\nsys.exit(3)\n"), "INFRA_CHECKER_ERROR", "exit code 3"),
    (reward_pb2.Checker(language="python", source="import sys\nsys.exit(7)\n"), "INFRA_CHECKER_ERROR", "exit code 7"),
    (reward_pb2.Checker(language="cpp", source="int main() { return }\n"), "INFRA_CHECKER_ERROR",
     "the checker does not compile"),
    (reward_pb2.Checker(language="cpp", source="#include <cstdlib>\nint main() { std::abort(); }\n"),
     "INFRA_CHECKER_ERROR", "SIGABRT"),
    (reward_pb2.Checker(language="cpp", source='#include <stdexcept>\nint main() { throw std::runtime_error("x"); }\n'),
     "INFRA_CHECKER_ERROR", "SIGABRT"),
    (reward_pb2.Checker(language="python", source="import sys\nsys.exit(\n"), "INFRA_CHECKER_ERROR",
     "the checker does not parse"),
    (reward_pb2.Checker(language="python", source="raise RuntimeError('checker bug')\n"), "INFRA_CHECKER_ERROR",
     "RuntimeError: checker bug"),
    (reward_pb2.Checker(language="python", source="import sys\nopen(sys.argv[1] + '.missing')\n"),
     "INFRA_CHECKER_ERROR", "FileNotFoundError"),
    (reward_pb2.Checker(language="python", source=PYTHON_CHECKER.replace("open(answer_file)", "open(input_file)")),
     "INFRA_CHECKER_ERROR", "AssertionError"),
    (reward_pb2.Checker(language="cobol", source="x"), "INFRA_UNKNOWN_LANGUAGE", "unknown checker language"),
    (reward_pb2.Checker(language="javascript", source="process.exit(\n"), "INFRA_CHECKER_ERROR",
     "the checker does not parse"),
    (reward_pb2.Checker(language="javascript", source="throw new Error('checker bug');\n"), "INFRA_CHECKER_ERROR",
     "Error: checker bug"),
    (reward_pb2.Checker(language="javascript", source="Promise.reject(new RangeError('later'));\n"),
     "INFRA_CHECKER_ERROR", "RangeError: later"),
    (reward_pb2.Checker(language="javascript", source="require('fs').readFileSync(process.argv[2] + '.missing');\n"),
     "INFRA_CHECKER_ERROR", "ENOENT"),
    (reward_pb2.Checker(language="rust", source='fn main() { panic!("checker bug"); }\n'), "INFRA_CHECKER_ERROR",
     "exit code 101"),
    # Java ends an uncaught exception with 1, testlib's wrong answer, and has no wrapper here
    (reward_pb2.Checker(language="java", source="public class Main { public static void main(String[] a) {} }\n"),
     "INFRA_UNSUPPORTED_TEST", "no checker runs in java here"),
])
def test_a_broken_checker_is_never_the_models_fault(server: ServerHandle, checker: reward_pb2.Checker,
                                                    verdict: str, detail: str) -> None:
    results = score(server, [candidate("right", "python", PROGRAMS["in-order"][0], checker),
                             candidate("crashes", "python", PROGRAMS["crashes"][0], checker)])
    assert verdict_name(results["right"]) == verdict, results["right"]
    assert detail in results["right"].detail, results["right"].detail
    assert not results["right"].HasField("reward")
    assert verdict_name(results["crashes"]) == "RUNTIME_ERROR"   # a run that failed is judged without the checker


@pytest.mark.parametrize(("checker", "field"), [
    (reward_pb2.Checker(language=" ", source="x"), "candidates[0].code.checker.language"),
    (reward_pb2.Checker(language="python", source=""), "candidates[0].code.checker.source"),
])
def test_a_malformed_checker_names_the_field(server: ServerHandle, checker: reward_pb2.Checker, field: str) -> None:
    with pytest.raises(grpc.RpcError) as info:
        score(server, [candidate("x", "python", "print(1)", checker)])
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert info.value.details().startswith(field + ":"), info.value.details()


def test_a_checker_that_does_not_parse_fails_every_candidate_once(server: ServerHandle) -> None:
    checker = reward_pb2.Checker(language="python", source=PYTHON_CHECKER.replace("sys.exit(2)", "sys.exit(2"))
    before = len(builds(server))
    results = score(server, [candidate(name, "python", code, checker) for name, (code, _) in PROGRAMS.items()])
    for name, (_, verdict) in PROGRAMS.items():
        expected = "RUNTIME_ERROR" if verdict == "RUNTIME_ERROR" else "INFRA_CHECKER_ERROR"
        assert verdict_name(results[name]) == expected, results[name]
    assert "the checker does not parse" in results["in-order"].detail and "SyntaxError" in results["in-order"].detail
    assert builds(server)[before:] == ["checker (python) built once for 4 candidate(s), 8 check(s)"]


# Each accepts the reference answer (the output file is the answer file: as `checker input answer answer`, run once per
# test) and ends on purpose with testlib's WA or PE on any other output.
PY_ACCEPTS_THE_REFERENCE = "import sys\nif open(sys.argv[2]).read() == open(sys.argv[3]).read():\n    sys.exit(0)\n"
CPP_ACCEPTS_THE_REFERENCE = textwrap.dedent("""
    #include <fstream>
    #include <sstream>
    #include <string>
    static std::string text(const char* path) {
        std::ostringstream s;
        s << std::ifstream(path).rdbuf();
        return s.str();
    }
    static bool reference(char** argv) { return text(argv[2]) == text(argv[3]); }
    """)
JS_ACCEPTS_THE_REFERENCE = ("const fs = require('fs');\nconst [, , , outputFile, answerFile] = process.argv;\n"
                            "if (fs.readFileSync(outputFile, 'utf8') === fs.readFileSync(answerFile, 'utf8')) "
                            "process.exit(0);\n")
EXITS_1_AND_2 = [   # (language, checker source)
    ("python", PY_ACCEPTS_THE_REFERENCE + "sys.exit(1)\n"),
    ("python", PY_ACCEPTS_THE_REFERENCE + "raise SystemExit(2)\n"),
    ("python", PY_ACCEPTS_THE_REFERENCE + "import os\nos._exit(2)\n"),
    ("python", PY_ACCEPTS_THE_REFERENCE + "try:\n    int('x')\nexcept ValueError:\n    sys.exit(1)\n"),
    ("python", PY_ACCEPTS_THE_REFERENCE + "\ndef main():\n    return 1\n\nif __name__ == '__main__':\n"
     "    sys.exit(main())\n"),
    ("python", PY_ACCEPTS_THE_REFERENCE + "sys.exit('wrong answer: a message')\n"),
    ("cpp", CPP_ACCEPTS_THE_REFERENCE + "int main(int, char** argv) { return reference(argv) ? 0 : 1; }\n"),
    ("cpp", CPP_ACCEPTS_THE_REFERENCE + "#include <cstdlib>\n"
     "int main(int, char** argv) { if (!reference(argv)) std::exit(2); }\n"),
    ("javascript", JS_ACCEPTS_THE_REFERENCE + "process.exit(1);\n"),
    ("javascript", JS_ACCEPTS_THE_REFERENCE + "process.exitCode = 2;\n"),
    ("javascript", JS_ACCEPTS_THE_REFERENCE + "setTimeout(() => process.exit(2), 1);\n"),
    ("rust", "fn main() {\n    let a: Vec<String> = std::env::args().collect();\n"
     "    if std::fs::read(&a[2]).unwrap() != std::fs::read(&a[3]).unwrap() { std::process::exit(1); }\n}\n"),
]


@pytest.mark.parametrize(("language", "source"), EXITS_1_AND_2)
def test_a_deliberate_exit_1_or_2_is_a_wrong_answer(server: ServerHandle, language: str, source: str) -> None:
    checker = reward_pb2.Checker(language=language, source=source)
    results = score(server, [candidate("right", "python", PROGRAMS["in-order"][0], checker),
                             candidate("other", "python", PROGRAMS["reversed"][0], checker)])
    assert verdict_name(results["right"]) == "PASS", results["right"]   # the reference answer itself
    assert verdict_name(results["other"]) == "WRONG_ANSWER", results["other"]
    assert results["other"].reward == 0.0
