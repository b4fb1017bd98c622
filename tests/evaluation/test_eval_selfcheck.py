"""The self-check: passes against this machine's server, and fails loudly when a grader is broken."""

from __future__ import annotations

import asyncio
import shutil
import tomllib
from pathlib import Path

import pytest

from reward_server.cli import main
from reward_server.client import RewardClient
from reward_server.evaluation.selfcheck import format_report, self_check
from reward_server.graders.code import CodeGrader
from reward_server.server import RewardServer, ServerConfig
from sandboxes.languages import LANGUAGES_DIR, LanguageTable
from tests.toolchains import hosted

# Fast languages keep the CLI run short; the test after it checks every ready language's samples.
LANGUAGES = "python,bash,cpp"


def test_self_check_passes_here(server_address: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["eval", "--server", server_address, "--self-check", "--self-check-limit", "10",
                 "--self-check-languages", LANGUAGES])
    out = capsys.readouterr().out
    assert code == 0, out
    # 3 x (5 stdin + 2 function-style) samples + 2 x 10 HumanEval + 4 equations
    assert "self-check passed: 45/45 verdicts agree in 4 language(s)" in out
    for language in ("python", "bash", "cpp", "equation"):
        assert any(line.split()[0] == language and line.endswith("ok") for line in out.splitlines())


def test_every_ready_language_s_samples_get_their_verdicts(server_address: str) -> None:
    """Each sample of every ready language passes or fails as its file declares, and none lacks samples."""
    with RewardClient(server_address) as client:
        ready = {language.key for language in client.languages().languages if language.ready}
        report = self_check(client, humaneval_limit=0)
    assert report.passed, format_report(report)
    assert ready >= hosted(), f"not ready: {sorted(hosted() - ready)}"
    assert {o.check.language for o in report.outcomes} == {*ready, "equation"}


def broken_table(tmp_path: Path) -> LanguageTable:
    """The real table with Python's run command replaced by one that exits 0 and prints nothing."""
    for folder in LANGUAGES_DIR.iterdir():
        if (folder / "language.toml").is_file():
            shutil.copytree(folder, tmp_path / "languages" / folder.name)
    entry = tmp_path / "languages" / "python" / "language.toml"
    raw = entry.read_text(encoding="utf-8")
    assert tomllib.loads(raw)["run"]["run"] == ["/usr/bin/python3", "{source}"]
    entry.write_text(raw.replace('run = ["/usr/bin/python3", "{source}"]', 'run = ["/usr/bin/true"]', 1))
    return LanguageTable.load(tmp_path / "languages")


@pytest.mark.asyncio
async def test_self_check_fails_when_a_grader_is_broken(tmp_path: Path) -> None:
    server = RewardServer(ServerConfig(port=0, workers=2))
    server.table = broken_table(tmp_path)
    server.grader = CodeGrader(server.table, server.pool)
    port = await server.start()
    try:
        def check():
            with RewardClient(f"127.0.0.1:{port}") as client:
                return self_check(client, humaneval_limit=3, only=["python", "bash"])
        report = await asyncio.to_thread(check)
    finally:
        await server.stop()
    assert not report.passed
    failed = {o.check.id: o.got for o in report.failures}
    # every Python program now "exits 0 with no output": the good io program reads as a wrong answer,
    # the crash and the endless loop as silent wrong answers, the known-bad HumanEval bodies as exits before
    # their tests finished (the end-of-tests marker never came)
    assert failed["python/good"] == "WRONG_ANSWER" and failed["python/loop"] == "WRONG_ANSWER"
    assert all(failed[f"python/HumanEval/{i}/return-none"] == "EXITED_EARLY" for i in range(3))
    assert all(o.check.language == "python" for o in report.failures)   # bash and equations still agree
    text = format_report(report)
    assert "MISMATCH python/good: expected PASS, got WRONG_ANSWER" in text
    assert "self-check FAILED" in text
