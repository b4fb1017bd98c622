"""TLS, mTLS and bearer tokens against real servers on loopback, with certificates made here."""

from __future__ import annotations

import dataclasses
import datetime
import ipaddress
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from google.protobuf import json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc

from reward_server.client import CallFailed, RewardClient, ServerUnavailable
from reward_server.credentials import TOKEN_ENV, ClientSecurity
from reward_server.loadtest.scrape import scrape, total
from reward_server.pb import reward_pb2, reward_pb2_grpc
from tests.candidates import equation, python_script, verdict_name
from tests.conftest import ROOT, ServerHandle

WAIT_S = 60.0  # what the client may wait for a server; a misconfigured connection must fail long before
TOKENS = ("old-token-still-accepted", "s3cret-token")


@dataclasses.dataclass(frozen=True)
class Pki:
    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path
    other_ca: Path   # signed nothing here: trusting it must fail


def _write_pair(directory: Path, name: str, cert: x509.Certificate,
                key: ec.EllipticCurvePrivateKey) -> tuple[Path, Path]:
    cert_path, key_path = directory / f"{name}.crt", directory / f"{name}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def _certificate(name: str, issuer: tuple[x509.Certificate, ec.EllipticCurvePrivateKey] | None
                 ) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    """A CA (no issuer) or a leaf for localhost / 127.0.0.1 signed by `issuer`."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    builder = (x509.CertificateBuilder().subject_name(subject)
               .issuer_name(issuer[0].subject if issuer else subject).public_key(key.public_key())
               .serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
               .add_extension(x509.BasicConstraints(ca=issuer is None, path_length=None), critical=True))
    if issuer is not None:
        builder = builder.add_extension(x509.SubjectAlternativeName(
            [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
    return builder.sign(issuer[1] if issuer else key, hashes.SHA256()), key


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    directory = tmp_path_factory.mktemp("pki")
    ca = _certificate("reward-test-ca", None)
    other = _certificate("someone-else", None)
    ca_path, _ = _write_pair(directory, "ca", *ca)
    other_path, _ = _write_pair(directory, "other-ca", *other)
    server = _write_pair(directory, "server", *_certificate("reward-server", ca))
    client = _write_pair(directory, "client", *_certificate("trainer", ca))
    return Pki(ca_path, *server, *client, other_path)


@pytest.fixture(scope="module")
def token_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("auth") / "tokens"
    path.write_text("\n".join(TOKENS) + "\n")
    return path


class SecureServer(ServerHandle):
    """A server whose readiness is checked through the client with the given security."""

    def __init__(self, security: ClientSecurity, *extra_args: str) -> None:
        self.security = security
        super().__init__(*extra_args)

    def _wait_serving(self) -> None:
        RewardClient(self.address, security=self.security, wait_ready_s=WAIT_S).close()


@pytest.fixture
def start_secure():
    started: list[ServerHandle] = []

    def start(security: ClientSecurity, *extra_args: str) -> SecureServer:
        server = SecureServer(security, *extra_args)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def tls_args(pki: Pki) -> tuple[str, ...]:
    return "--tls-cert", str(pki.server_cert), "--tls-key", str(pki.server_key)


def some_candidates() -> list[reward_pb2.Candidate]:
    return [python_script("p", "print(6 * 7)", "42"), equation("e", "VERDICT: TRUE", True)]


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reward_server", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=120, check=False, env={**os.environ, **(env or {})})


def fails_at_once(security: ClientSecurity, address: str, message: str) -> None:
    """The client errors naming the cause, without waiting out WAIT_S the way it would for a server not up yet."""
    started = time.monotonic()
    with pytest.raises(ServerUnavailable, match=message):
        RewardClient(address, security=security, wait_ready_s=WAIT_S)
    assert time.monotonic() - started < WAIT_S / 4


def test_tls_scores_and_plaintext_mismatches_fail_at_once(start_server, start_secure, pki: Pki) -> None:
    trusting = ClientSecurity(tls_ca=pki.ca)
    server = start_secure(trusting, *tls_args(pki))
    with RewardClient(server.address, security=trusting) as client:
        assert [verdict_name(r) for r in client.score(some_candidates())] == ["PASS", "PASS"]
    fails_at_once(ClientSecurity(), server.address, "UNAVAILABLE: .*serves TLS.*plaintext")
    fails_at_once(ClientSecurity(tls_ca=pki.other_ca), server.address, "TLS handshake failed")
    plaintext = start_server()
    fails_at_once(trusting, plaintext.address, "TLS handshake failed")

    done = run_cli("languages", "--server", server.address)
    assert done.returncode == 1 and re.search(r"^reward-server languages: UNAVAILABLE: .*serves TLS", done.stderr, re.M)
    done = run_cli("languages", "--server", server.address, "--tls-ca", str(pki.ca))
    assert done.returncode == 0 and " yes " in done.stdout, done.stderr


def test_health_port_answers_probes_in_plaintext_and_nothing_else(start_secure, pki: Pki) -> None:
    trusting = ClientSecurity(tls_ca=pki.ca)
    server = start_secure(trusting, *tls_args(pki), "--health-port", "0")
    health_address = re.search(r"health on (\S+)", server.process.stdout.readline()).group(1)
    with grpc.insecure_channel(health_address) as channel:
        reply = health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(service="reward.v1.RewardService"), timeout=10)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
        with pytest.raises(grpc.RpcError) as refused:
            reward_pb2_grpc.RewardServiceStub(channel).Score(
                reward_pb2.ScoreRequest(candidates=some_candidates()), timeout=10)
        assert refused.value.code() == grpc.StatusCode.UNIMPLEMENTED


def test_mtls_requires_a_client_certificate_from_the_ca(start_secure, pki: Pki) -> None:
    mutual = ClientSecurity(tls_ca=pki.ca, tls_cert=pki.client_cert, tls_key=pki.client_key)
    server = start_secure(mutual, *tls_args(pki), "--tls-client-ca", str(pki.ca))
    with RewardClient(server.address, security=mutual) as client:
        assert [verdict_name(r) for r in client.score(some_candidates())] == ["PASS", "PASS"]
    fails_at_once(ClientSecurity(tls_ca=pki.ca), server.address, "requires a client certificate")
    done = run_cli("languages", "--server", server.address, "--tls-ca", str(pki.ca), "--tls-cert",
                   str(pki.client_cert), "--tls-key", str(pki.client_key))
    assert done.returncode == 0, done.stderr


def counted(metrics_url: str) -> tuple[float, float, float]:
    samples = scrape(metrics_url)
    return (total(samples, "reward_requests_total"), total(samples, "reward_candidates_total"),
            total(samples, "reward_verdicts_total"))


def test_tokens_gate_every_call_but_health(start_server, token_file: Path, tmp_path: Path) -> None:
    server = start_server("--auth-token-file", str(token_file), "--metrics-port", "0")
    metrics_url = server.metrics_url
    for token in TOKENS:
        with RewardClient(server.address, security=ClientSecurity(token=token)) as client:
            assert [verdict_name(r) for r in client.score(some_candidates())] == ["PASS", "PASS"]
    before = counted(metrics_url)

    for token in (None, "wrong", TOKENS[1] + "x", TOKENS[1][:-1]):
        with RewardClient(server.address, security=ClientSecurity(token=token)) as client:  # health is open
            with pytest.raises(CallFailed, match="UNAUTHENTICATED") as refused:
                client.score(some_candidates())
            assert refused.value.code == grpc.StatusCode.UNAUTHENTICATED
            with pytest.raises(CallFailed, match="UNAUTHENTICATED"):
                list(client.score_stream(some_candidates()))
            with pytest.raises(CallFailed, match="UNAUTHENTICATED"):
                client.languages()
    with grpc.insecure_channel(server.address) as channel:  # raw calls: no header, and a header not "Bearer"
        stub = reward_pb2_grpc.RewardServiceStub(channel)
        for metadata in ((), (("authorization", TOKENS[1]),)):
            with pytest.raises(grpc.RpcError) as raw:
                stub.Score(reward_pb2.ScoreRequest(candidates=some_candidates()), metadata=metadata, timeout=30)
            assert raw.value.code() == grpc.StatusCode.UNAUTHENTICATED
        health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
        assert health.status == health_pb2.HealthCheckResponse.SERVING
    assert counted(metrics_url) == before  # nothing refused was validated, graded or counted

    wrong, batch = tmp_path / "wrong", tmp_path / "batch.jsonl"
    wrong.write_text("nope\n")
    batch.write_text(json_format.MessageToJson(equation("e", "VERDICT: TRUE", True), indent=None) + "\n")
    done = run_cli("score", "--server", server.address, "--auth-token-file", str(wrong), "--input", str(batch))
    assert done.returncode == 1 and "reward-server score: UNAUTHENTICATED: wrong bearer token" in done.stderr
    done = run_cli("languages", "--server", server.address, env={TOKEN_ENV: TOKENS[0]})
    assert done.returncode == 0 and " yes " in done.stdout, done.stderr


def test_the_client_reads_tls_and_token_from_the_environment(start_secure, pki: Pki, token_file: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    security = ClientSecurity(tls_ca=pki.ca, token=TOKENS[1])
    server = start_secure(security, *tls_args(pki), "--auth-token-file", str(token_file))
    monkeypatch.setenv("REWARD_SERVER_TLS_CA", str(pki.ca))
    monkeypatch.setenv(TOKEN_ENV, TOKENS[1])
    with RewardClient(server.address) as client:  # what the TRL rewards do: an address, nothing else
        assert [verdict_name(r) for r in client.score(some_candidates())] == ["PASS", "PASS"]


def test_beyond_loopback_without_tls_warns(start_server, token_file: Path) -> None:
    server = start_server("--host", "0.0.0.0", "--auth-token-file", str(token_file))
    server.stop()
    log = server.stderr_text()
    assert "in plaintext beyond loopback" in log and "no client authentication" not in log, log


@pytest.mark.parametrize(("args", "message"), [
    (("--tls-cert", "x.pem"), "--tls-cert and --tls-key go together"),
    (("--tls-client-ca", "ca.pem"), "needs the server's own --tls-cert"),
    (("--auth-token-file", "/nonexistent/tokens"), "cannot read the token file"),
])
def test_serve_refuses_incomplete_security_settings(args: tuple[str, ...], message: str) -> None:
    done = run_cli("serve", "--port", "0", *args)
    assert done.returncode == 2 and message in done.stderr, done.stderr
