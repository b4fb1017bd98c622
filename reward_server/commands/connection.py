"""The flags every command that talks to a server shares: the address, TLS and the bearer token.

Each flag falls back to the environment variable the client itself reads (reward_server.credentials), so a
shell set up for training (`$REWARD_SERVER_TOKEN`, `$REWARD_SERVER_TLS_CA`...) needs no flags.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reward_server.client import RewardServerError
from reward_server.credentials import (
    TLS_CA_ENV,
    TLS_CERT_ENV,
    TLS_KEY_ENV,
    TOKEN_ENV,
    ClientSecurity,
    CredentialsError,
    read_tokens,
)

SERVER_HELP = ("a gRPC target (dns:///reward.ns.svc:50051, ipv4:10.0.0.5:50051,10.0.0.6:50051, HOST:PORT), "
               "balanced round_robin, or a comma list HOST:PORT,HOST:PORT (one channel each); failover either way")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--server", required=True, help=SERVER_HELP)
    group = parser.add_argument_group("TLS and authentication (docs/deploy.md)")
    group.add_argument("--tls-ca", type=Path, metavar="FILE",
                       help=f"connect with TLS, trusting this CA (PEM; default ${TLS_CA_ENV})")
    group.add_argument("--tls-cert", type=Path, metavar="FILE",
                       help=f"client certificate for mTLS (default ${TLS_CERT_ENV})")
    group.add_argument("--tls-key", type=Path, metavar="FILE", help=f"its private key (default ${TLS_KEY_ENV})")
    group.add_argument("--auth-token-file", type=Path, metavar="FILE",
                       help=f"send the bearer token on this file's first line (default ${TOKEN_ENV})")


def client_options(args: argparse.Namespace) -> dict[str, Any]:
    """Keyword arguments for RewardClient / AsyncRewardClient.connect; CredentialsError if they do not fit."""
    token = read_tokens(args.auth_token_file)[0] if args.auth_token_file else None
    return {"security": ClientSecurity.from_env(tls_ca=args.tls_ca, tls_cert=args.tls_cert, tls_key=args.tls_key,
                                                token=token)}


Command = Callable[[argparse.Namespace], int]


def reporting(command: str) -> Callable[[Command], Command]:
    """Decorates a command's `run`: the client's errors become one line naming the gRPC status (their messages
    start with it) and exit status 1; unusable TLS or token settings exit 2."""

    def decorate(run: Command) -> Command:
        @functools.wraps(run)
        def reported(args: argparse.Namespace) -> int:
            try:
                return run(args)
            except (RewardServerError, CredentialsError) as exc:
                print(f"reward-server {command}: {exc}", file=sys.stderr)
                return 2 if isinstance(exc, CredentialsError) else 1

        return reported

    return decorate
