"""Request validation: a malformed request is refused whole, with the path of the offending field.

Only the client's own mistakes land here; anything a model can write (any completion text) is valid input
and is graded, never refused.
"""

from __future__ import annotations

import re

from reward_server.graders.laws import LawError, parse_law
from reward_server.pb import reward_pb2

MAX_CANDIDATES = 65_536
MAX_IO_TESTS = 10_000
MAX_TIMEOUT_S = 300.0
MAX_MEMORY_MB = 65_536
# a name every call harness's language can call (Python, C++, Java, JavaScript identifiers alike)
FUNCTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class InvalidRequest(ValueError):
    """The request breaks the contract; the message starts with the field path."""


def _check_enum(value: int, enum_type, path: str) -> None:
    if value not in enum_type.values():
        raise InvalidRequest(f"{path}: unknown value {value}")


def validate_request(request: reward_pb2.ScoreRequest) -> None:
    _check_enum(request.priority, reward_pb2.Priority, "priority")
    if len(request.candidates) > MAX_CANDIDATES:
        raise InvalidRequest(f"candidates: {len(request.candidates)} exceeds the limit of {MAX_CANDIDATES}")
    for index, candidate in enumerate(request.candidates):
        kind = candidate.WhichOneof("task")
        path = f"candidates[{index}]"
        if kind is None:
            raise InvalidRequest(f"{path}.task: one of code or equation is required")
        if kind == "code":
            _validate_code(candidate.code, f"{path}.code")
        elif candidate.equation.require_counterexample:
            _validate_laws(candidate.equation, f"{path}.equation")


def _validate_code(code: reward_pb2.CodeTask, path: str) -> None:
    if not code.language.strip():
        raise InvalidRequest(f"{path}.language: required")
    _check_enum(code.extraction, reward_pb2.Extraction, f"{path}.extraction")
    _check_enum(code.comparator, reward_pb2.Comparator, f"{path}.comparator")
    if code.tests and code.io_tests:
        raise InvalidRequest(f"{path}: tests (function style) and io_tests (stdin/stdout) are exclusive")
    if not code.tests and not code.io_tests:
        raise InvalidRequest(f"{path}: tests or io_tests is required")
    if len(code.io_tests) > MAX_IO_TESTS:
        raise InvalidRequest(f"{path}.io_tests: {len(code.io_tests)} exceeds the limit of {MAX_IO_TESTS}")
    if not 0.0 <= code.timeout_s <= MAX_TIMEOUT_S:  # also refuses NaN
        raise InvalidRequest(f"{path}.timeout_s: must be within [0, {MAX_TIMEOUT_S:g}] (0 = default)")
    if code.memory_mb > MAX_MEMORY_MB:
        raise InvalidRequest(f"{path}.memory_mb: must be at most {MAX_MEMORY_MB} (0 = default)")
    for i, token in enumerate(code.stop_tokens):
        if not token:
            raise InvalidRequest(f"{path}.stop_tokens[{i}]: empty stop token")
    if code.function_name:
        if not FUNCTION_NAME.fullmatch(code.function_name):
            raise InvalidRequest(f"{path}.function_name: {code.function_name!r} is not an identifier")
        if code.tests:
            raise InvalidRequest(f"{path}.function_name: call-based tests are io_tests, not function-style tests")
    if code.HasField("checker"):
        if code.tests or code.function_name:
            raise InvalidRequest(f"{path}.checker: a checker judges the stdout of stdin/stdout io_tests only")
        for field in ("language", "source"):
            if not getattr(code.checker, field).strip():
                raise InvalidRequest(f"{path}.checker.{field}: required")


def _validate_laws(equation: reward_pb2.EquationTask, path: str) -> None:
    """A counterexample is checked against the laws: they must be given, and parse."""
    for field in ("equation1", "equation2"):
        text = getattr(equation, field)
        if not text.strip():
            raise InvalidRequest(f"{path}.{field}: required with require_counterexample")
        try:
            parse_law(text)
        except LawError as exc:
            raise InvalidRequest(f"{path}.{field}: not a law ({exc})") from None
