"""`reward-server eval` against a real server: pass@k by hand, resume, endpoint generation."""

from __future__ import annotations

import gzip
import http.server
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from reward_server.cli import main
from reward_server.evaluation.completions import RETRIES
from reward_server.evaluation.results import ResultStore

PROBLEMS = [
    {"id": "add", "benchmark": "mini", "language": "python", "prompt": "def add(a, b):\n",
     "tests": "assert add(2, 3) == 5\nassert add(-1, 1) == 0\n", "stop_tokens": ["\ndef"]},
    {"id": "sum", "benchmark": "mini", "language": "bash", "prompt": "Print the sum of two integers.",
     "io_tests": [{"stdin": "1 2\n", "expected_stdout": "3\n"}, {"stdin": "5 5\n", "expected_stdout": "10\n"}],
     "extraction": "first_block"},
    {"id": "eq", "benchmark": "sair", "prompt": "Does x*y = y*x imply x*x = x*x?", "expected": True},
]
COMPLETIONS = {
    # 4 samples, 2 pass; the third passes only because the stop token cuts the broken helper off
    "add": ["    return a + b\n", "    return a - b\n", "    return b + a\n\ndef broken(:\n", "    return a * b\n"],
    # 3 samples, 1 passes; one has no fenced block (NO_CODE)
    "sum": ["```bash\nread a b\necho $((a + b))\n```", "```bash\nread a b\necho $((a * b))\n```", "no code here"],
    # 2 samples, 1 passes
    "eq": ["\\boxed{TRUE}", "\\boxed{FALSE}"],
}
# Hand-computed: pass@1 = mean(2/4, 1/3, 1/2);
# pass@2 = mean(1 - C(2,2)/C(4,2), 1 - C(2,2)/C(3,2), 1) = mean(5/6, 2/3, 1)
PASS_AT_1 = (2 / 4 + 1 / 3 + 1 / 2) / 3
PASS_AT_2 = (5 / 6 + 2 / 3 + 1) / 3
EXPECTED_VERDICTS = {"add/0": "PASS", "add/1": "RUNTIME_ERROR", "add/2": "PASS", "add/3": "RUNTIME_ERROR",
                     "sum/0": "PASS", "sum/1": "WRONG_ANSWER", "sum/2": "NO_CODE", "eq/0": "PASS",
                     "eq/1": "WRONG_ANSWER"}


def write_inputs(tmp_path: Path) -> tuple[Path, Path]:
    problems = tmp_path / "problems.jsonl"
    problems.write_text("".join(json.dumps(row) + "\n" for row in PROBLEMS))
    completions = tmp_path / "completions.jsonl"
    completions.write_text("".join(json.dumps({"problem_id": pid, "completion": text}) + "\n"
                                   for pid, texts in COMPLETIONS.items() for text in texts))
    return problems, completions


def run_eval(server: str, problems: Path, output: Path, *extra: str) -> dict:
    code = main(["eval", "--server", server, "--problems", str(problems), "--output", str(output),
                 "-k", "1,2", "--no-progress", "--batch-size", "4", *extra])
    assert code == 0
    return json.loads((output / "summary.json").read_text())


def verdicts(output: Path) -> dict[str, str]:
    return {r.id: r.verdict for r in ResultStore(output / "results.jsonl").load()}


def test_pass_at_k_equals_the_hand_computed_value(server_address: str, tmp_path: Path) -> None:
    problems, completions = write_inputs(tmp_path)
    out = tmp_path / "out"
    summary = run_eval(server_address, problems, out, "--completions", str(completions), "--multipl-e-results")
    assert verdicts(out) == EXPECTED_VERDICTS
    assert summary["overall"]["pass_at_k"] == {"1": pytest.approx(PASS_AT_1), "2": pytest.approx(PASS_AT_2)}
    assert summary["by_language"]["python"]["pass_at_k"]["2"] == pytest.approx(5 / 6)
    assert summary["by_benchmark"]["sair"]["pass_at_k"]["1"] == pytest.approx(0.5)
    assert summary["overall"]["infra"] == 0 and summary["overall"]["scored"] == 9
    assert (out / "passk.png").stat().st_size > 0
    assert (out / "multipl-e" / "add.results.json.gz").exists()


def test_resume_skips_model_verdicts_and_retries_infra(server_address: str, tmp_path: Path) -> None:
    problems, completions = write_inputs(tmp_path)
    out = tmp_path / "out"
    run_eval(server_address, problems, out, "--completions", str(completions))
    path = out / "results.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    by_id = {row["id"]: row for row in rows}
    # Doctor the store: a graded result rewritten (a re-run must keep it: proof it is not re-scored), one
    # result turned into an infra failure (must be retried), one lost, and a torn last line.
    by_id["add/1"]["verdict"], by_id["add/1"]["reward"] = "PASS", 1.0
    by_id["sum/0"]["verdict"], by_id["sum/0"]["reward"] = "INFRA_SANDBOX_ERROR", None
    del by_id["eq/0"]
    path.write_text("".join(json.dumps(row) + "\n" for row in by_id.values()) + '{"id": "eq/0", "verd')

    summary = run_eval(server_address, problems, out, "--completions", str(completions))
    assert verdicts(out) == {**EXPECTED_VERDICTS, "add/1": "PASS"}   # the kept row, the retry, the lost one
    assert len(path.read_text().splitlines()) == len(EXPECTED_VERDICTS) + 1   # only 2 new lines appended
    assert summary["overall"]["pass_at_k"]["1"] == pytest.approx((3 / 4 + 1 / 3 + 1 / 2) / 3)


class FakeOpenAI(http.server.BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint (an external service, so faked): canned right and wrong samples.

    Faults are injected in arrival order from `faults`: "429" and "503" (Retry-After: `retry_after` seconds),
    "torn" (the connection closes mid-answer), "html" (a 200 that is not the API); `max_choices` caps the
    choices returned. Each request is held `hold_s` while it counts as in flight; `arrivals` are
    (monotonic time, Authorization header) per request.
    """

    requests: ClassVar[list[tuple[str, dict]]] = []
    arrivals: ClassVar[list[tuple[float, str | None]]] = []
    faults: ClassVar[list[str]] = []
    max_choices: ClassVar[int | None] = None
    retry_after: ClassVar[str] = "0.01"
    hold_s: ClassVar[float] = 0.0
    in_flight: ClassVar[int] = 0
    most_in_flight: ClassVar[int] = 0
    lock = threading.Lock()

    def do_POST(self) -> None:
        with FakeOpenAI.lock:
            FakeOpenAI.in_flight += 1
            FakeOpenAI.most_in_flight = max(FakeOpenAI.most_in_flight, FakeOpenAI.in_flight)
        try:
            time.sleep(FakeOpenAI.hold_s)
            self._post()
        finally:
            with FakeOpenAI.lock:
                FakeOpenAI.in_flight -= 1

    def _post(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with FakeOpenAI.lock:
            FakeOpenAI.requests.append((self.path, body))
            FakeOpenAI.arrivals.append((time.monotonic(), self.headers.get("Authorization")))
            fault = FakeOpenAI.faults.pop(0) if FakeOpenAI.faults else None
        if fault in ("429", "503"):
            self.send_response(int(fault))
            self.send_header("Retry-After", FakeOpenAI.retry_after)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if fault == "html" or not self.path.startswith("/v1/"):
            self._answer(200 if fault == "html" else 404, b"<html><body>not here</body></html>", "text/html")
            return
        n = min(body["n"], FakeOpenAI.max_choices or body["n"])
        if self.path.endswith("/chat/completions"):
            texts = ["```bash\nread a b\necho $((a + b))\n```", "\\boxed{TRUE}"]
            choices = [{"index": i, "message": {"role": "assistant", "content": texts[i % 2]}}
                       for i in range(n)]
        else:
            choices = [{"index": i, "text": ["    return a + b\n", "    return 0\n"][i % 2]} for i in range(n)]
        data = json.dumps({"choices": list(reversed(choices))}).encode()   # order must come from "index"
        if fault == "torn":
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[:len(data) // 2])
            return
        self._answer(200, data, "application/json")

    def _answer(self, status: int, data: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[str]:
    FakeOpenAI.requests, FakeOpenAI.arrivals, FakeOpenAI.faults, FakeOpenAI.max_choices = [], [], [], None
    FakeOpenAI.retry_after, FakeOpenAI.hold_s, FakeOpenAI.in_flight, FakeOpenAI.most_in_flight = "0.01", 0.0, 0, 0
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakeOpenAI)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_endpoint_generation_is_scored_and_resumed(server_address: str, tmp_path: Path, endpoint: str) -> None:
    problems, _ = write_inputs(tmp_path)
    out = tmp_path / "out"
    args = ("--endpoint", endpoint, "--model", "m", "-n", "2", "--temperature", "0.7", "--max-tokens", "64")
    summary = run_eval(server_address, problems, out, *args)
    paths = sorted(path for path, _ in FakeOpenAI.requests)
    assert paths == ["/v1/chat/completions", "/v1/chat/completions", "/v1/completions"]
    plain = next(body for path, body in FakeOpenAI.requests if path == "/v1/completions")
    assert (plain["prompt"], plain["stop"], plain["n"], plain["model"]) == ("def add(a, b):\n", ["\ndef"], 2, "m")
    chat = next(body for path, body in FakeOpenAI.requests if path.endswith("chat/completions"))
    assert chat["messages"][0]["role"] == "user" and chat["temperature"] == 0.7
    assert verdicts(out)["add/0"] == "PASS" and verdicts(out)["add/1"] == "RUNTIME_ERROR"
    assert summary["overall"]["scored"] == 6
    with (out / "completions.jsonl").open("a") as stream:
        stream.write('{"problem_id": "eq", "compl')   # an interrupted write
    run_eval(server_address, problems, out, *args)
    assert len(FakeOpenAI.requests) == 3          # nothing sampled twice
    assert len((out / "completions.jsonl").read_text().splitlines()) == 6


def test_endpoint_faults_are_retried_and_short_answers_asked_again(server_address: str, tmp_path: Path,
                                                                   endpoint: str) -> None:
    problems, _ = write_inputs(tmp_path)
    out = tmp_path / "out"
    FakeOpenAI.max_choices = 1
    FakeOpenAI.faults = ["429", "torn", "503"]
    run_eval(server_address, problems, out, "--endpoint", endpoint, "--model", "m", "-n", "3")
    rows = [json.loads(line) for line in (out / "completions.jsonl").read_text().splitlines()]
    assert sorted(row["problem_id"] for row in rows) == sorted(["add", "sum", "eq"] * 3)
    # one request per problem asks for 3 and gets 1; the 6 others ask for 1 each; each fault costs one retry
    asked = sorted(body["n"] for _, body in FakeOpenAI.requests)
    assert len(asked) == 9 + 3 and asked.count(1) >= 6 and asked.count(3) >= 3
    assert verdicts(out)["add/0"] == "PASS" and len(verdicts(out)) == 9


def test_retries_and_asks_for_missing_choices_stay_within_the_concurrency_cap(server_address: str, tmp_path: Path,
                                                                               endpoint: str) -> None:
    problems, _ = write_inputs(tmp_path)
    FakeOpenAI.max_choices, FakeOpenAI.hold_s, FakeOpenAI.faults = 1, 0.1, ["429", "503", "torn"]
    run_eval(server_address, problems, tmp_path / "out", "--endpoint", endpoint, "--model", "m", "-n", "4",
             "--concurrency", "2")
    assert len(FakeOpenAI.requests) == 3 * 4 + 3
    assert FakeOpenAI.most_in_flight == 2


def test_a_retry_waits_as_long_as_the_server_asks(server_address: str, tmp_path: Path, endpoint: str) -> None:
    problems, _ = write_inputs(tmp_path)
    FakeOpenAI.retry_after, FakeOpenAI.faults = "1.5", ["429"]   # the client's own first backoff is under 0.5 s
    run_eval(server_address, problems, tmp_path / "out", "--endpoint", endpoint, "--model", "m", "--concurrency", "1")
    (refused, _), (retried, _) = FakeOpenAI.arrivals[:2]
    assert FakeOpenAI.requests[0] == FakeOpenAI.requests[1] and retried - refused >= 1.5


def test_the_endpoint_and_key_come_from_the_environment_unless_given(server_address: str, tmp_path: Path,
                                                                    endpoint: str,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    problems, _ = write_inputs(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", endpoint)
    run_eval(server_address, problems, tmp_path / "env", "--model", "m")
    assert len(FakeOpenAI.arrivals) == 3 and {auth for _, auth in FakeOpenAI.arrivals} == {"Bearer sk-test"}
    with socket.socket() as unused:   # a port nothing listens on: --endpoint wins over $OPENAI_BASE_URL
        unused.bind(("127.0.0.1", 0))
        monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{unused.getsockname()[1]}/v1")
    run_eval(server_address, problems, tmp_path / "flag", "--model", "m", "--endpoint", endpoint)
    assert len(FakeOpenAI.arrivals) == 6


def test_a_server_that_does_not_speak_the_api_is_a_clear_error(server_address: str, tmp_path: Path, endpoint: str,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    problems, _ = write_inputs(tmp_path)

    def eval_error(url: str) -> str:
        code = main(["eval", "--server", server_address, "--problems", str(problems), "--output",
                     str(tmp_path / "out"), "--endpoint", url, "--model", "m", "--concurrency", "1", "--no-progress"])
        assert code == 2
        return capsys.readouterr().err

    assert "HTTP 404 (not an OpenAI-compatible API?" in eval_error(endpoint.removesuffix("/v1"))
    FakeOpenAI.faults = ["html"]
    assert "no 'choices' list in the answer (not an OpenAI-compatible API?" in eval_error(endpoint)
    FakeOpenAI.requests, FakeOpenAI.faults = [], ["503"] * (RETRIES + 1)
    assert "HTTP 503" in eval_error(endpoint)
    assert len(FakeOpenAI.requests) == RETRIES + 1   # the client's retries, then the error
    assert not (tmp_path / "out" / "results.jsonl").exists()


def test_multipl_e_directory_in_and_out(server_address: str, tmp_path: Path) -> None:
    directory = tmp_path / "humaneval-py-model-0.2-reworded"
    directory.mkdir()
    row = {"name": "HumanEval_53_add", "language": "py", "prompt": "def add(x: int, y: int) -> int:\n",
           "tests": "def check(candidate):\n    assert candidate(2, 3) == 5\n\ncheck(add)\n",
           "stop_tokens": ["\ndef", "\n#", "\nif", "\nclass"],
           "completions": ["    return x + y\n", "    return x - y\n", "    return y + x\n# done\n"]}
    with gzip.open(directory / "HumanEval_53_add.json.gz", "wt") as stream:
        json.dump(row, stream)
    out = tmp_path / "out"
    assert main(["eval", "--server", server_address, "--completions", str(directory), "--output", str(out),
                 "--multipl-e-results", "--no-progress"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["ks"] == [1] and summary["overall"]["pass_at_k"]["1"] == pytest.approx(2 / 3)
    assert summary["by_benchmark"]["humaneval-py-model-0.2-reworded"]["problems"] == 1
    with gzip.open(out / "multipl-e" / "HumanEval_53_add.results.json.gz", "rt") as stream:
        results = json.load(stream)["results"]
    assert [r["status"] for r in results] == ["OK", "Exception", "OK"]
    assert results[2]["program"] == row["prompt"] + "    return y + x" + "\n" + row["tests"]   # cut at "\\n#"


def test_eval_refuses_incomplete_arguments(server_address: str, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    problems, completions = write_inputs(tmp_path)
    assert main(["eval", "--server", server_address, "--completions", str(completions),
                 "--output", str(tmp_path / "o")]) == 2
    assert "a completions file carries no problems" in capsys.readouterr().err
    assert main(["eval", "--server", server_address, "--problems", str(problems), "--endpoint", "http://x/v1",
                 "--output", str(tmp_path / "o")]) == 2
    assert "--endpoint needs --model" in capsys.readouterr().err
