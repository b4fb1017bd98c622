"""Server lifecycle (graceful drain, loopback default) and the `reward-server` CLI."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time

import grpc
import pytest
from google.protobuf import json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc

from reward_server.client import RequestRejected, RewardClient, ServerUnavailable
from reward_server.pb import reward_pb2
from tests.candidates import equation, python_script, verdict_name
from tests.conftest import ROOT, wait_grading


def test_drain_finishes_in_flight_work_and_reports_not_serving(start_server) -> None:
    server = start_server("--metrics-port", "0")   # its pool's gauges show when the call is in flight
    outcome: dict = {}

    def call() -> None:
        with RewardClient(server.address) as client:
            outcome["results"] = client.score([python_script("slow", "import time\ntime.sleep(3)\nprint('done')\n",
                                                             "done", timeout_s=20)])

    caller = threading.Thread(target=call)
    caller.start()
    wait_grading(server)
    server.process.terminate()
    statuses = []
    with grpc.insecure_channel(server.address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        while server.process.poll() is None:
            try:
                statuses.append(health.Check(health_pb2.HealthCheckRequest(), timeout=1).status)
            except grpc.RpcError as error:
                statuses.append(error.code())
            time.sleep(0.1)
    caller.join(30)
    assert server.process.returncode == 0, server.stderr_text()
    assert verdict_name(outcome["results"][0]) == "PASS", outcome
    assert health_pb2.HealthCheckResponse.SERVING not in statuses, statuses


def test_binds_loopback_by_default(start_server) -> None:
    server = start_server()
    assert server.address.startswith("127.0.0.1:")


def test_client_reports_a_down_server_clearly() -> None:
    with pytest.raises(ServerUnavailable, match=r"127\.0\.0\.1:9"):
        RewardClient("127.0.0.1:9", wait_ready_s=0.5)


def test_client_renumbers_rejected_fields(server_address: str) -> None:
    rejected = pytest.raises(RequestRejected, match=r"candidates\[1\]\.code\.language")
    with RewardClient(server_address) as client, rejected:
        client.score([equation("a", "TRUE", True),
                      reward_pb2.Candidate(id="b", code=reward_pb2.CodeTask(tests="x"))])


def run_cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reward_server", *args], input=stdin, capture_output=True,
                          text=True, cwd=ROOT, timeout=300, check=False)


def test_cli_score_jsonl(server_address: str, tmp_path) -> None:
    candidates = [python_script("a", "print(6 * 7)", "42"), equation("b", "VERDICT: FALSE", True),
                  python_script("c", "print(1)", "2")]
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json_format.MessageToJson(c, indent=None) + "\n" for c in candidates))
    out = tmp_path / "out.jsonl"
    done = run_cli("score", "--server", server_address, "--input", str(source), "--output", str(out))
    assert done.returncode == 0, done.stderr
    lines = out.read_text().splitlines()
    assert len(lines) == 3
    rows = [json.loads(line) for line in lines]
    assert [(r["id"], r["verdict"]) for r in rows] == [("a", "PASS"), ("b", "WRONG_ANSWER"), ("c", "WRONG_ANSWER")]
    assert rows[0]["reward"] == 1.0 and rows[2]["reward"] == 0.0
    assert "extracted" in rows[0]  # preserving_proto_field_name


def test_cli_score_rejects_bad_json(server_address: str) -> None:
    done = run_cli("score", "--server", server_address, stdin='{"id": "x", "code": {"nonsense": 1}}\n')
    assert done.returncode == 2
    assert "-:1" in done.stderr


def test_cli_languages(server_address: str) -> None:
    done = run_cli("languages", "--server", server_address)
    assert done.returncode == 0, done.stderr
    rows = {line.split()[0]: line for line in done.stdout.splitlines()[2:]}
    assert " yes " in rows["python"] and " yes " in rows["cpp"]
