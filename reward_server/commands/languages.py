"""`reward-server languages`: print a server's language table (readiness, version, what runs it: the toolchain's
fingerprint or the pinned image by digest; or why it is not ready)."""

from __future__ import annotations

import argparse
import urllib.parse

from reward_server.client import RewardClient
from reward_server.commands import connection
from reward_server.pb import reward_pb2
from sandboxes.languages import LanguageTable, UnknownLanguage


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    languages = subparsers.add_parser("languages", help="print the server's language table")
    connection.add_arguments(languages)
    languages.set_defaults(func=run)


@connection.reporting("languages")
def run(args: argparse.Namespace) -> int:
    with RewardClient(args.server, **connection.client_options(args)) as client:
        reply = client.languages()
    print(f"backend: {reply.backend}")
    print(f"limits: {reply.limits or 'not reported'}")
    for weaker in reply.weaker_limits:
        print(f"  weaker: {weaker}")
    print(f"{'key':<12} {'ready':<6} {'version':<40} {'aliases':<24} sandbox, or why not ready")
    table = LanguageTable.load()
    for lang in reply.languages:
        print(f"{lang.key:<12} {'yes' if lang.ready else 'no':<6} {(lang.version or '-')[:40]:<40} "
              f"{','.join(lang.aliases):<24} {lang.sandbox if lang.ready else why_not(lang, table)}")
    return 0


def why_not(lang: reward_pb2.Language, table: LanguageTable) -> str:
    """The server's reason, and for a toolchain Debian lacks, where its image's install comes from (the table)."""
    try:
        release = table.resolve(lang.key).release
    except UnknownLanguage:
        release = None
    if release is None:
        return lang.reason
    return (f"{lang.reason}; not in Debian 12: only its image has it, the official "
            f"{release.url.rsplit('/', 1)[-1]} (sha256 {release.sha256[:12]}...), which `reward-server images build "
            f"{lang.key}` fetches from {urllib.parse.urlsplit(release.url).hostname}")
