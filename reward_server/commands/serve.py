"""`reward-server serve`: run the gRPC reward server on a sandbox backend."""

from __future__ import annotations

import argparse
import asyncio
import logging
from pathlib import Path

from reward_server.credentials import CredentialsError, ServerSecurity
from sandboxes.backend import SandboxError
from sandboxes.backends import BACKENDS


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    from reward_server.server import ServerConfig

    defaults = ServerConfig()
    serve = subparsers.add_parser("serve", help="run the gRPC reward server")
    serve.add_argument("--host", default=defaults.host, help="bind address (default: loopback only)")
    serve.add_argument("--port", type=int, default=defaults.port, help="0 picks a free port (printed at start)")
    serve.add_argument("--backend", choices=sorted(BACKENDS), default=defaults.backend,
                       help="; ".join(f"{kind.name}: {kind.summary}" for kind in BACKENDS.values()))
    serve.add_argument("--cache-size", type=int, default=defaults.cache_size,
                       help="finished code results kept for byte-identical tasks (0: only share in-flight ones)")
    serve.add_argument("--workers", type=int, default=defaults.workers, help="sandbox slots (default: CPU count)")
    serve.add_argument("--grace", type=float, default=defaults.grace_s,
                       help="seconds a drain waits for in-flight work")
    serve.add_argument("--metrics-port", type=int, default=defaults.metrics_port,
                       help="serve Prometheus /metrics on this port (0 picks a free one, printed at start)")
    secure = serve.add_argument_group("TLS and authentication (docs/deploy.md)")
    secure.add_argument("--tls-cert", type=Path, metavar="FILE",
                        help="serve TLS with this certificate (PEM; with --tls-key)")
    secure.add_argument("--tls-key", type=Path, metavar="FILE", help="the certificate's private key (PEM)")
    secure.add_argument("--tls-client-ca", type=Path, metavar="FILE",
                        help="require client certificates signed by this CA (mTLS; needs --tls-cert)")
    secure.add_argument("--auth-token-file", type=Path, metavar="FILE", default=defaults.auth_token_file,
                        help="require a bearer token from this file (one per line); health checks stay open")
    secure.add_argument("--health-port", type=int, metavar="PORT", default=defaults.health_port,
                        help="also serve grpc.health.v1 alone, in plaintext, on this port (for probes that "
                             "cannot speak TLS, like Kubernetes' gRPC probes)")
    for kind in BACKENDS.values():
        group = serve.add_argument_group(f"{kind.name} backend")
        for option in kind.options:
            group.add_argument(f"--{option.flag or option.name.replace('_', '-')}", dest=f"{kind.name}_{option.name}",
                               type=option.type, default=option.default, help=f"{option.help} (default: %(default)s)")
    serve.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from reward_server.server import RewardServer, ServerConfig

    kind = BACKENDS[args.backend]
    try:
        security = ServerSecurity(args.tls_cert, args.tls_key, args.tls_client_ca)
        config = ServerConfig(host=args.host, port=args.port, backend=args.backend, workers=args.workers,
                              metrics_port=args.metrics_port, grace_s=args.grace, cache_size=args.cache_size,
                              security=security, auth_token_file=args.auth_token_file,
                              health_port=args.health_port,
                              backend_options={o.name: getattr(args, f"{kind.name}_{o.name}") for o in kind.options})
        asyncio.run(RewardServer(config).serve_until_signalled())
    except CredentialsError as exc:
        logging.getLogger("reward_server").error("cannot serve: %s", exc)
        return 2
    except (SandboxError, OSError) as exc:  # the sandboxes or the port are unusable: say so and stop
        logging.getLogger("reward_server").error("cannot serve: %s", exc)
        return 1
    return 0
