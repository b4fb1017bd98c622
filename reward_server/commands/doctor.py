"""`reward-server doctor`: what this host lets the default (process) backend enforce, which limits mode `serve` would
take, and the fix for each missing piece. It changes nothing on the host; `./serve.sh` runs it first."""

from __future__ import annotations

import argparse

from sandboxes.backends.process import CHOICES
from sandboxes.backends.process.backend import ProcessBackend
from sandboxes.backends.process.host import checks, would_choose
from sandboxes.languages import LanguageTable

NEEDED = ("bwrap", "gcc", "user namespaces")     # without any of these the process backend does not start


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    doctor = subparsers.add_parser("doctor", help="print what this host can enforce and what serve would pick")
    doctor.add_argument("--limits", choices=CHOICES, default="auto", help="the serve --limits to judge")
    doctor.add_argument("--languages", action="store_true", help="also probe every language's toolchain")
    doctor.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Exit 0 when `serve --limits LIMITS` would start here, 1 when it would refuse."""
    problems = 0
    for check in checks():
        print(f"{'ok ' if check.ok else 'no '} {check.name:<18} {check.detail}")
        if check.fix:
            print(f"{'':4}{'':18} fix: {check.fix}")
        problems += not check.ok and check.name in NEEDED
    if args.languages:
        backend = ProcessBackend()
        for language in LanguageTable.load():
            info = backend.describe(language)
            print(f"{'ok ' if info.ready else 'no '} {language.key:<18} {info.version if info.ready else info.reason}")
    mode, reasons = would_choose(args.limits)
    for reason in reasons:
        print(f"    not {reason}")
    if mode is None:
        print(f"serve --limits {args.limits} would refuse to start: no writable cgroups")
        return 1
    print(f"serve --limits {args.limits} would enforce limits with: {mode}"
          + (" (WEAKER than cgroups: docs/guards.md, Limits without cgroups)" if mode == "rlimit" else ""))
    return 1 if problems else 0
