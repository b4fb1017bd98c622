"""Builders for request candidates, so tests read as data."""

from __future__ import annotations

from collections.abc import Iterable

from reward_server.pb import reward_pb2


def function_style(cid: str, language: str, prompt: str, completion: str, tests: str, **fields) -> reward_pb2.Candidate:
    return reward_pb2.Candidate(id=cid, code=reward_pb2.CodeTask(
        language=language, prompt=prompt, completion=completion, tests=tests, **fields))


def stdio(cid: str, language: str, code: str, cases: Iterable[tuple[str, str]], **fields) -> reward_pb2.Candidate:
    return reward_pb2.Candidate(id=cid, code=reward_pb2.CodeTask(
        language=language, completion=code,
        io_tests=[reward_pb2.IOTest(stdin=i, expected_stdout=o) for i, o in cases], **fields))


def python_script(cid: str, code: str, expected: str = "", **fields) -> reward_pb2.Candidate:
    """A python program with one stdin/stdout test (empty stdin) expecting `expected`."""
    return stdio(cid, "python", code, [("", expected)], **fields)


def equation(cid: str, response: str, expected: bool) -> reward_pb2.Candidate:
    return reward_pb2.Candidate(id=cid, equation=reward_pb2.EquationTask(response=response, expected=expected))


def verdict_name(result: reward_pb2.ScoreResult) -> str:
    return reward_pb2.Verdict.Name(result.verdict)
