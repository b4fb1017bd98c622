"""`reward-server score`: score a JSONL of Candidates (protobuf JSON), one ScoreResult a line, in input order."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from typing import TextIO

from google.protobuf import json_format

from reward_server.client import RewardClient
from reward_server.commands import connection
from reward_server.pb import reward_pb2


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    score = subparsers.add_parser("score", help="score a JSONL of Candidates (protobuf JSON)")
    connection.add_arguments(score)
    score.add_argument("--input", default="-")
    score.add_argument("--output", default="-")
    score.add_argument("--priority", default="training", choices=["training", "eval", "background"])
    score.add_argument("--timeout", type=float, default=None, help="deadline for the whole batch, seconds")
    score.set_defaults(func=run)


@contextlib.contextmanager
def _open(path: str, mode: str, default: TextIO) -> Iterator[TextIO]:
    """The named file, closed afterwards, or the standard stream for "-" (left open)."""
    if path == "-":
        yield default
        return
    with open(path, mode, encoding="utf-8") as f:
        yield f


@connection.reporting("score")
def run(args: argparse.Namespace) -> int:
    candidates = []
    with _open(args.input, "r", sys.stdin) as source:
        for number, line in enumerate(source, 1):
            if line.strip():
                try:
                    candidates.append(json_format.Parse(line, reward_pb2.Candidate()))
                except json_format.ParseError as exc:
                    print(f"{args.input}:{number}: not a Candidate in protobuf JSON: {exc}", file=sys.stderr)
                    return 2
    with RewardClient(args.server, timeout_s=args.timeout, **connection.client_options(args)) as client:
        results = client.score(candidates, priority=reward_pb2.Priority.Value(args.priority.upper()))
    with _open(args.output, "w", sys.stdout) as sink:
        for result in results:
            sink.write(json_format.MessageToJson(result, preserving_proto_field_name=True, indent=None) + "\n")
        sink.flush()
    return 0
