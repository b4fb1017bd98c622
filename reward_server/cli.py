"""`reward-server`: serve, check a host (doctor), score a JSONL of candidates, list languages, build images, eval,
loadtest."""

from __future__ import annotations

import argparse
import logging
import sys

from reward_server.commands import doctor, images, languages, score, serve
from reward_server.evaluation import command as eval_command
from reward_server.loadtest import command as loadtest_command

SUBCOMMANDS = (serve, doctor, score, languages, images, eval_command, loadtest_command)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="reward-server", description=__doc__)
    parser.add_argument("--log-level", default="INFO")
    commands = parser.add_subparsers(dest="command", required=True)
    for subcommand in SUBCOMMANDS:
        subcommand.add_parser(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
