"""tests/skips.py in a real pytest run of a tiny test file: under --strict-skips a skip its allow-list lacks fails the
session (a test's or a whole module's), the allowed ones pass and are listed; without the option nothing fails."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.toolchains import not_hosted_reason

ALLOWED_SKIP = f"""
import pytest


def test_runs():
    pass


def test_julia():
    pytest.skip({not_hosted_reason("julia")!r})
"""
UNLISTED_SKIP = ALLOWED_SKIP + """

def test_kubectl():
    pytest.skip("kubectl is not installed")
"""
UNLISTED_MODULE_SKIP = """
import pytest

pytest.skip("kubectl is not installed", allow_module_level=True)
"""


def run_pytest(tmp_path: Path, source: str, *options: str) -> subprocess.CompletedProcess:
    (tmp_path / "test_tiny.py").write_text(source)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "tests.skips", "-p", "no:cacheprovider", *options,
                           "test_tiny.py"], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize("source", [UNLISTED_SKIP, UNLISTED_MODULE_SKIP], ids=["test", "module"])
def test_a_skip_the_allow_list_lacks_fails_a_strict_session(tmp_path: Path, source: str) -> None:
    done = run_pytest(tmp_path, source, "--strict-skips")
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout
    assert "1 skip(s) tests/skips.py does not allow: the session fails" in done.stdout, done.stdout
    assert "test_tiny.py" in done.stdout and ": kubectl is not installed" in done.stdout, done.stdout


def test_allowed_skips_pass_a_strict_session_and_are_listed(tmp_path: Path) -> None:
    done = run_pytest(tmp_path, ALLOWED_SKIP, "--strict-skips")
    assert done.returncode == pytest.ExitCode.OK, done.stdout
    assert "skips tests/skips.py allows" in done.stdout, done.stdout
    assert f"1 x {not_hosted_reason('julia')}" in done.stdout and "official release tarballs" in done.stdout
    assert "does not allow" not in done.stdout


def test_without_the_option_a_skip_fails_nothing(tmp_path: Path) -> None:
    done = run_pytest(tmp_path, UNLISTED_SKIP)
    assert done.returncode == pytest.ExitCode.OK, done.stdout
    assert "1 passed, 2 skipped" in done.stdout and "tests/skips.py" not in done.stdout, done.stdout
