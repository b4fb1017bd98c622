"""Grading through a real server on loopback: every ready language, comparators, extractors, SAIR verdicts."""

from __future__ import annotations

import pytest

from reward_server.client import RewardClient
from reward_server.pb import reward_pb2
from sandboxes.languages.samples import SUM_TESTS, SUM_TESTS_LAST_WRONG, load_samples
from tests.candidates import equation, function_style, python_script, stdio, verdict_name
from tests.language_table import load_table
from tests.toolchains import hosted, require_ready


@pytest.fixture(scope="module")
def client(server_address: str):
    with RewardClient(server_address) as client:
        yield client


@pytest.fixture(scope="module")
def languages(client: RewardClient) -> dict[str, reward_pb2.Language]:
    return {lang.key: lang for lang in client.languages().languages}


@pytest.fixture(scope="module")
def ready(languages: dict[str, reward_pb2.Language]) -> set[str]:
    return {key for key, lang in languages.items() if lang.ready}


def test_every_language_the_host_setup_installs_is_ready(ready: set[str]) -> None:
    assert ready >= hosted(), f"not ready: {sorted(hosted() - ready)}"


@pytest.fixture(scope="module")
def language_results(client: RewardClient, ready: set[str]) -> dict[str, list[reward_pb2.ScoreResult]]:
    """One batch with four candidates per language: function pass/fail, stdin/stdout pass/fail."""
    candidates = []
    for key in sorted(ready):
        fn, io = load_samples()[key].function, load_samples()[key].stdin.good
        candidates += [
            function_style(f"{key}/fn-pass", key, fn.prompt, fn.completion, fn.tests),
            function_style(f"{key}/fn-fail", key, fn.prompt, fn.wrong, fn.tests),
            stdio(f"{key}/io-pass", key, io, SUM_TESTS),
            stdio(f"{key}/io-fail", key, io, SUM_TESTS_LAST_WRONG, run_all_tests=True),
        ]
    results = client.score(candidates, timeout_s=900)
    by_language: dict[str, list[reward_pb2.ScoreResult]] = {}
    for result in results:
        by_language.setdefault(result.id.split("/")[0], []).append(result)
    return by_language


@pytest.mark.parametrize("key", sorted(language.key for language in load_table()))
def test_language_pass_and_fail(key: str, languages: dict[str, reward_pb2.Language], language_results) -> None:
    require_ready(key, languages[key].ready, languages[key].reason)
    fn_pass, fn_fail, io_pass, io_fail = language_results[key]
    assert verdict_name(fn_pass) == "PASS", fn_pass
    assert fn_pass.reward == 1.0 and fn_pass.sandbox
    assert verdict_name(fn_fail) == "RUNTIME_ERROR", fn_fail
    assert fn_fail.reward == 0.0
    assert verdict_name(io_pass) == "PASS", io_pass
    assert verdict_name(io_fail) == "WRONG_ANSWER", io_fail
    assert [verdict_name(t) for t in io_fail.tests] == ["PASS", "WRONG_ANSWER"]


def test_aliases_resolve(client: RewardClient) -> None:
    aliases = ["py", "python", "Python3", "cpp", "c++", "java", "js", "javascript", "ts", "typescript", "rs", "rust",
               "go", "rb", "ruby", "php", "pl", "sh", "lua", "r", "ml", "ocaml", "rkt", "cs", "c#", "d", "scala",
               "kotlin", "fortran", "jl", "julia", "swift", "hs"]
    results = client.score([stdio(a, a, "x", [("", "")]) for a in aliases])
    unknown = [r.id for r in results if "unknown language" in r.detail]
    assert not unknown, unknown


def test_unknown_language_is_infra_not_failure(client: RewardClient) -> None:
    [result] = client.score([stdio("x", "brainfuck", "+.", [("", "")])])
    assert verdict_name(result) == "INFRA_UNKNOWN_LANGUAGE"
    assert not result.HasField("reward")


ECHO = "import sys\nsys.stdout.write({out!r})\n"
COMPARATOR_CASES = [
    # (comparator, program output, expected, verdict)
    ("EXACT", "1 2\n", "1 2", "PASS"),
    ("EXACT", "1 2   \n\n", "1 2", "PASS"),
    ("EXACT", " 1 2\n", "1 2", "WRONG_ANSWER"),
    ("EXACT", "1  2\n", "1 2", "WRONG_ANSWER"),
    ("EXACT", "a\n\nb\n", "a\nb\n", "WRONG_ANSWER"),
    ("EXACT", "True\n", "true\n", "WRONG_ANSWER"),
    ("EXACT", "0.1000001\n", "0.1\n", "WRONG_ANSWER"),
    ("LENIENT", " 1 2 \n", "1 2", "PASS"),
    ("LENIENT", "\n\n1 2\n\n", "1 2", "PASS"),
    ("LENIENT", "a\n\nb\n", "a\nb\n", "WRONG_ANSWER"),
    ("LENIENT", "True\n", "true\n", "PASS"),
    ("LENIENT", "FALSE\n", "false\n", "PASS"),
    ("LENIENT", "0.100009\n", "0.1\n", "PASS"),
    ("LENIENT", "0.10002\n", "0.1\n", "WRONG_ANSWER"),
    ("LENIENT", "nan\n", "nan\n", "PASS"),  # equal lines match before any number parsing
    ("LENIENT", "nan\n", "NaN\n", "WRONG_ANSWER"),  # as numbers, NaN never matches
    ("LENIENT", "1 2\n", "1 2 3\n", "WRONG_ANSWER"),
    ("LCB", " 1 2 \n", "1 2", "PASS"),
    ("LCB", "1.50\n", "1.5\n", "PASS"),
    ("LCB", "0.100009\n", "0.1\n", "WRONG_ANSWER"),
    ("LCB", "True\n", "true\n", "WRONG_ANSWER"),
    ("LCB", "1\n2\n", "1\n2\n3\n", "WRONG_ANSWER"),
]


def test_comparators(client: RewardClient) -> None:
    candidates = [python_script(f"c{i}", ECHO.format(out=out), expected, comparator=reward_pb2.Comparator.Value(cmp))
                  for i, (cmp, out, expected, _) in enumerate(COMPARATOR_CASES)]
    got = [verdict_name(r) for r in client.score(candidates)]
    want = [case[3] for case in COMPARATOR_CASES]
    mismatches = [(case, g) for case, g in zip(COMPARATOR_CASES, got, strict=True) if case[3] != g]
    assert got == want, mismatches


def test_lenient_appends_the_missing_newline_to_stdin(client: RewardClient) -> None:
    program = "import sys\nprint(repr(sys.stdin.read()))\n"
    lenient, exact = client.score([
        stdio("l", "python", program, [("5", "'5\\n'")], comparator=reward_pb2.LENIENT),
        stdio("e", "python", program, [("5", "'5'")], comparator=reward_pb2.EXACT)])
    assert verdict_name(lenient) == "PASS", lenient
    assert verdict_name(exact) == "PASS", exact


COMPLETION = (
    "<think>maybe\n```python\nprint('thinking')\n```\n</think>\nHere it is:\n"
    "```python\n# YOUR CODE HERE\nprint('first')\n```\nand also\n```python\nprint('last')\n```\n"
)


@pytest.mark.parametrize(("extraction", "expected"), [
    (reward_pb2.FIRST_BLOCK, "first"), (reward_pb2.LAST_BLOCK, "last")])
def test_extractors(client: RewardClient, extraction: int, expected: str) -> None:
    [result] = client.score([stdio("x", "python", COMPLETION, [("", expected)], extraction=extraction)])
    assert verdict_name(result) == "PASS", result
    assert f"print('{expected}')" in result.extracted
    assert "YOUR CODE HERE" not in result.extracted


def test_no_code(client: RewardClient) -> None:
    candidate = stdio("x", "python", "I cannot solve this.", [("", "")], extraction=reward_pb2.LAST_BLOCK)
    [result] = client.score([candidate])
    assert verdict_name(result) == "NO_CODE" and result.reward == 0.0


def test_stop_tokens_cut_the_completion(client: RewardClient) -> None:
    completion = "    return a + b\n\ndef other():\n    raise SystemExit(3)\nother()\n"
    [result] = client.score([function_style("x", "py", "def add(a, b):\n", completion, "assert add(2, 3) == 5\n",
                                            stop_tokens=["\ndef ", "\nclass "])])
    assert verdict_name(result) == "PASS", result


SAIR_CASES = [
    ("The answer is \\boxed{TRUE}.", True, "PASS"),
    ("**VERDICT: FALSE**", False, "PASS"),
    ("VERDICT: TRUE\n\nActually \\boxed{\\text{FALSE}}", False, "PASS"),
    ("Answer TRUE or FALSE.\n\nVERDICT: FALSE", False, "PASS"),
    ("VERDICT: TRUE\nlater... VERDICT: FALSE", True, "WRONG_ANSWER"),
    ("I think so.\nTRUE", True, "PASS"),
    ("I am not sure.", True, "NO_VERDICT"),
    ("\\boxed{answer}", True, "NO_VERDICT"),
]


def test_equational_verdicts(client: RewardClient) -> None:
    results = client.score([equation(str(i), r, e) for i, (r, e, _) in enumerate(SAIR_CASES)])
    assert [verdict_name(r) for r in results] == [case[2] for case in SAIR_CASES]
    assert [r.reward for r in results] == [1.0 if case[2] == "PASS" else 0.0 for case in SAIR_CASES]
    assert results[0].extracted == "TRUE"


def test_stream_returns_every_result(client: RewardClient) -> None:
    candidates = [python_script(f"p{i}", f"print({i})", str(i)) for i in range(6)] + [equation("e", "TRUE", True)]
    streamed = list(client.score_stream(candidates))
    assert sorted(r.index for r in streamed) == list(range(7))
    assert all(verdict_name(r) == "PASS" for r in streamed), streamed


COMPILE_ERRORS = {
    "cpp": "int main() { return undefined_name; }\n",
    "java": "public class Main { public static void main(String[] a) { int x = \"s\"; } }\n",
    "rust": "fn main() { let x: i32 = \"s\"; }\n",
    "go": "package main\n\nfunc main() {\n\tx := 1\n}\n",
    "typescript": "const x: number = 'not a number';\n",
    "csharp": "class P { static void Main() { int x = \"s\"; } }\n",
    "fortran": "program main\n  integer :: x\n  x = 'text'\nend program main\n",
}


def test_compile_errors(client: RewardClient) -> None:
    keys = sorted(COMPILE_ERRORS)
    assert set(keys) <= hosted()  # each must be ready here
    results = client.score([stdio(key, key, COMPILE_ERRORS[key], [("", "")]) for key in keys], timeout_s=600)
    for key, result in zip(keys, results, strict=True):
        assert verdict_name(result) == "COMPILE_ERROR", (key, result)
        assert result.reward == 0.0 and result.detail, (key, result)


def test_megabytes_of_output_are_compared_in_full(client: RewardClient) -> None:
    """Large outputs take the threaded comparison path; the verdicts must be the same as for small ones."""
    line = "1.000001 " * 10 + "\n"
    program = f"import sys\nsys.stdout.write({line!r} * 50000)\n"
    close, off = client.score([
        python_script("close", program, ("1.000002 " * 10 + "\n") * 50000, comparator=reward_pb2.LENIENT),
        python_script("off", program, ("1.000002 " * 10 + "\n") * 49999 + "1.1\n", comparator=reward_pb2.LENIENT),
    ], timeout_s=120)
    assert verdict_name(close) == "PASS", close
    assert verdict_name(off) == "WRONG_ANSWER", off
