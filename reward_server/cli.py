"""`reward-server`: serve, score a JSONL of candidates, list languages (and the helpers' subcommands)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
from collections.abc import Iterator
from typing import TextIO

from google.protobuf import json_format

from reward_server import images
from reward_server.client import RewardClient
from reward_server.evaluation import command as eval_command
from reward_server.loadtest import command as loadtest_command
from reward_server.pb import reward_pb2
from sandboxes.backend import SandboxError


def _serve(args: argparse.Namespace) -> int:
    from reward_server.server import RewardServer, ServerConfig

    config = ServerConfig(host=args.host, port=args.port, backend=args.backend, workers=args.workers,
                          metrics_port=args.metrics_port, grace_s=args.grace, cache_size=args.cache_size,
                          warm=args.warm,
                          recycle_after=args.recycle_after)
    try:
        asyncio.run(RewardServer(config).serve_until_signalled())
    except (SandboxError, OSError) as exc:  # the sandboxes or the port are unusable: say so and stop
        logging.getLogger("reward_server").error("cannot serve: %s", exc)
        return 1
    return 0


@contextlib.contextmanager
def _open(path: str, mode: str, default: TextIO) -> Iterator[TextIO]:
    """The named file, closed afterwards, or the standard stream for "-" (left open)."""
    if path == "-":
        yield default
        return
    with open(path, mode, encoding="utf-8") as f:
        yield f


def _score(args: argparse.Namespace) -> int:
    candidates = []
    with _open(args.input, "r", sys.stdin) as source:
        for number, line in enumerate(source, 1):
            if line.strip():
                try:
                    candidates.append(json_format.Parse(line, reward_pb2.Candidate()))
                except json_format.ParseError as exc:
                    print(f"{args.input}:{number}: not a Candidate in protobuf JSON: {exc}", file=sys.stderr)
                    return 2
    with RewardClient(args.server, timeout_s=args.timeout) as client:
        results = client.score(candidates, priority=reward_pb2.Priority.Value(args.priority.upper()))
    with _open(args.output, "w", sys.stdout) as sink:
        for result in results:
            sink.write(json_format.MessageToJson(result, preserving_proto_field_name=True, indent=None) + "\n")
        sink.flush()
    return 0


def _languages(args: argparse.Namespace) -> int:
    with RewardClient(args.server) as client:
        reply = client.languages()
    print(f"backend: {reply.backend}")
    print(f"{'key':<12} {'ready':<6} {'aliases':<28} {'version':<40} sandbox")
    for lang in reply.languages:
        version = lang.version if lang.ready else f"({lang.reason})"
        print(f"{lang.key:<12} {'yes' if lang.ready else 'no':<6} {','.join(lang.aliases):<28} "
              f"{version[:40]:<40} {lang.sandbox}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="reward-server", description=__doc__)
    parser.add_argument("--log-level", default="INFO")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the gRPC reward server")
    serve.add_argument("--host", default="127.0.0.1", help="bind address (default: loopback only)")
    serve.add_argument("--port", type=int, default=50051, help="0 picks a free port (printed at start)")
    serve.add_argument("--backend", choices=["process", "docker"], default="process",
                       help="process: embedded bubblewrap sandboxes; docker: digest-pinned images "
                            "(sandboxes/images.lock or $REWARD_SANDBOX_LOCK) on $DOCKER_HOST")
    serve.add_argument("--cache-size", type=int, default=4096,
                       help="finished code results kept for byte-identical tasks (0: only share in-flight ones)")
    serve.add_argument("--warm", type=int, default=1,
                       help="docker: idle containers kept per pinned language (0 = start one per candidate)")
    serve.add_argument("--recycle-after", type=int, default=100,
                       help="docker: jobs a container serves before it is replaced")
    serve.add_argument("--workers", type=int, default=None, help="sandbox slots (default: CPU count)")
    serve.add_argument("--grace", type=float, default=30.0, help="seconds a drain waits for in-flight work")
    serve.add_argument("--metrics-port", type=int, default=None,
                       help="serve Prometheus /metrics on this port (0 picks a free one, printed at start)")
    serve.set_defaults(func=_serve)

    score = commands.add_parser("score", help="score a JSONL of Candidates (protobuf JSON)")
    score.add_argument("--server", required=True, help="HOST:PORT[,HOST:PORT...]")
    score.add_argument("--input", default="-")
    score.add_argument("--output", default="-")
    score.add_argument("--priority", default="training", choices=["training", "eval", "background"])
    score.add_argument("--timeout", type=float, default=None, help="deadline for the whole batch, seconds")
    score.set_defaults(func=_score)

    languages = commands.add_parser("languages", help="print the server's language table")
    languages.add_argument("--server", required=True)
    languages.set_defaults(func=_languages)
    images.add_parser(commands)
    eval_command.add_parser(commands)
    loadtest_command.add_parser(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
