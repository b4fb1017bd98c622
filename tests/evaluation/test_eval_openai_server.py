"""`reward-server eval --endpoint` against a real OpenAI-compatible server: `transformers serve` on CPU.

`transformers serve` ignores `n` (one choice per request), like many OpenAI-compatible servers: eval must
ask again until each problem has its n samples, on both /completions and /chat/completions, and resume.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from reward_server.evaluation.results import ResultStore
from reward_server.verdicts import Verdict
from tests.evaluation.test_eval_e2e import PROBLEMS, run_eval, write_inputs
from tests.trainers.tiny_model import tiny_model

START_TIMEOUT_S = 120.0
N = 3


class TransformersServe:
    """`transformers serve` pinned to a tiny local model, offline, on CPU, on a free loopback port."""

    def __init__(self, model_dir: Path) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.log = tempfile.NamedTemporaryFile("w+", suffix=".log")  # noqa: SIM115 (lives as long as the server)
        self.model = str(model_dir)   # the served model's name
        cli = Path(sys.executable).with_name("transformers")
        self.process = subprocess.Popen(
            [str(cli), "serve", self.model, "--host", "127.0.0.1", "--port", str(self.port),
             "--device", "cpu", "--dtype", "float32", "--default-seed", "0"],
            stdout=self.log, stderr=subprocess.STDOUT,
            env={**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_UPDATE_CHECK": "1"})
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._wait_healthy()

    def _wait_healthy(self) -> None:
        give_up = time.monotonic() + START_TIMEOUT_S
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"transformers serve exited {self.process.returncode}:\n{self.output()}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=2) as reply:
                    if reply.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError):
                if time.monotonic() > give_up:
                    output = self.output()
                    self.stop()
                    raise RuntimeError(f"transformers serve not healthy in {START_TIMEOUT_S:g}s:\n{output}") from None
            time.sleep(0.5)

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read()

    def posts(self, path: str) -> int:
        """Requests the server answered 200 on `path` (its uvicorn access log)."""
        return self.output().count(f'"POST {path} HTTP/1.1" 200')

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TransformersServe]:
    model_dir = tmp_path_factory.mktemp("tiny")
    tiny_model(model_dir, [row["prompt"] for row in PROBLEMS] + ["```bash\necho 1\n```", "\\boxed{TRUE}"])
    server = TransformersServe(model_dir)
    yield server
    server.stop()


def test_eval_gets_n_samples_from_a_server_that_ignores_n(server_address: str, tmp_path: Path,
                                                          served: TransformersServe) -> None:
    problems, _ = write_inputs(tmp_path)
    out = tmp_path / "out"
    args = ("--endpoint", served.base_url, "--model", served.model, "-n", str(N), "--max-tokens", "16",
            "--temperature", "0.7", "-k", "1,3")
    summary = run_eval(server_address, problems, out, *args)

    completions = [json.loads(line) for line in (out / "completions.jsonl").read_text().splitlines()]
    assert sorted(row["problem_id"] for row in completions) == sorted([p["id"] for p in PROBLEMS] * N)
    records = ResultStore(out / "results.jsonl").load()
    assert sorted(r.id for r in records) == sorted(f"{p['id']}/{s}" for p in PROBLEMS for s in range(N))
    assert not any(Verdict[r.verdict].is_infra for r in records)
    assert summary["overall"]["scored"] == N * len(PROBLEMS) and summary["overall"]["infra"] == 0
    # one choice per request: N requests per problem, the function-style one continued, the others chatted
    assert served.posts("/v1/completions") == N
    assert served.posts("/v1/chat/completions") == N * (len(PROBLEMS) - 1)

    # resume: nothing is sampled again; a problem whose samples were lost (and a torn line) is sampled anew
    kept = [row for row in completions if row["problem_id"] != "add"]
    (out / "completions.jsonl").write_text("".join(json.dumps(row) + "\n" for row in kept) + '{"problem_id": "a')
    run_eval(server_address, problems, out, *args)
    assert served.posts("/v1/completions") == 2 * N
    assert served.posts("/v1/chat/completions") == N * (len(PROBLEMS) - 1)
    resumed = [json.loads(line) for line in (out / "completions.jsonl").read_text().splitlines()]
    assert resumed[:len(kept)] == kept
    assert [row["problem_id"] for row in resumed[len(kept):]] == ["add"] * N
    run_eval(server_address, problems, out, *args)
    assert served.posts("/v1/completions") == 2 * N
