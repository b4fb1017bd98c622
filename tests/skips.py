"""No silent skips: under `--strict-skips` (./test.sh passes it, and so CI) a skip whose reason ALLOWED lacks fails
the session, and the allowed ones are listed at its end. Without it, running a file on its own, a skip is only a skip.

A skip is allowed only where no script of the project can provide what the test needs. Anything one can (a toolchain,
kubectl, qemu) is installed by ./test.sh, and its absence is a broken setup, which must not pass quietly.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter

import pytest

OPTION = "--strict-skips"


@dataclasses.dataclass(frozen=True)
class Allowed:
    pattern: str    # searched for in the skip's reason
    why: str        # why no script of the project can lift it


ALLOWED = (
    Allowed(r"is not on the host: its toolchain is an official release",
            "julia and swift come only as official release tarballs, unpacked in their docker images; the host setup "
            "installs Debian packages (tests/toolchains.py)"),
    Allowed(r"its image needs the official release",
            "the hosts of julia's and swift's official releases are out of this machine's reach"),
    Allowed(r"\bGPU\b", "whether a GPU is there: vLLM needs one, and a GPU-less machine's training defaults need none"),
    Allowed(r"^no writable cgroups on this host$",
            "a container given no writable cgroup filesystem; the rlimit mode is tested there instead"),
)


def allowance(reason: str) -> Allowed | None:
    return next((allowed for allowed in ALLOWED if re.search(allowed.pattern, reason)), None)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(OPTION, action="store_true",
                     help="fail the session on a skip whose reason tests/skips.py does not allow (./test.sh)")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("strict_skips"):
        config.pluginmanager.register(SkipPolicy(), "strict-skips")


class SkipPolicy:
    """Notes every skip, of a test or of a whole module, and judges them when the session ends."""

    def __init__(self) -> None:
        self.skips: list[tuple[str, str]] = []     # (node id, reason)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self._note(report)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        self._note(report)

    def _note(self, report: pytest.TestReport | pytest.CollectReport) -> None:
        if report.skipped and not hasattr(report, "wasxfail"):
            longrepr = report.longrepr
            reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
            self.skips.append((report.nodeid, reason.removeprefix("Skipped: ")))

    def unlisted(self) -> list[tuple[str, str]]:
        return [(node, reason) for node, reason in self.skips if allowance(reason) is None]

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.unlisted() and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        allowed = Counter(reason for _, reason in self.skips if allowance(reason) is not None)
        if allowed:
            terminalreporter.write_sep("=", "skips tests/skips.py allows")
            for reason, count in sorted(allowed.items()):
                terminalreporter.write_line(f"{count} x {reason}\n    ({allowance(reason).why})")
        if unlisted := self.unlisted():
            terminalreporter.write_sep("=", f"{len(unlisted)} skip(s) tests/skips.py does not allow: the session fails",
                                       red=True)
            for node, reason in unlisted:
                terminalreporter.write_line(f"{node}: {reason}")
