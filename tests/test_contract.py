"""The wire contract: fresh stubs, precise INVALID_ARGUMENT errors, health, reflection, ListLanguages."""

from __future__ import annotations

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from reward_server import protogen
from reward_server.pb import reward_pb2, reward_pb2_grpc
from tests.candidates import equation, python_script
from tests.toolchains import hosted


def test_generated_stubs_are_fresh() -> None:
    for name, text in protogen.generate().items():
        committed = (protogen.OUT / name).read_text()
        assert committed == text, f"reward_server/pb/{name} is stale: run python -m reward_server.protogen"


@pytest.fixture
def stub(server_address: str):
    with grpc.insecure_channel(server_address) as channel:
        yield reward_pb2_grpc.RewardServiceStub(channel)


def test_health_and_reflection(server_address: str) -> None:
    with grpc.insecure_channel(server_address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for service in ("", "reward.v1.RewardService"):
            reply = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        reflect = reflection_pb2_grpc.ServerReflectionStub(channel)
        replies = list(reflect.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")])))
        names = {s.name for s in replies[0].list_services_response.service}
        assert {"reward.v1.RewardService", "grpc.health.v1.Health"} <= names


def code_task(**fields) -> reward_pb2.CodeTask:
    base = dict(language="python", completion="print(1)", io_tests=[reward_pb2.IOTest(stdin="", expected_stdout="1")])
    return reward_pb2.CodeTask(**{**base, **fields})


@pytest.mark.parametrize(("candidate", "field"), [
    (reward_pb2.Candidate(id="x"), "candidates[1].task"),
    (reward_pb2.Candidate(id="x", code=code_task(language="")), "candidates[1].code.language"),
    (reward_pb2.Candidate(id="x", code=code_task(io_tests=[])), "candidates[1].code"),
    (reward_pb2.Candidate(id="x", code=code_task(tests="assert True")), "candidates[1].code"),
    (reward_pb2.Candidate(id="x", code=code_task(timeout_s=-1)), "candidates[1].code.timeout_s"),
    (reward_pb2.Candidate(id="x", code=code_task(timeout_s=float("nan"))), "candidates[1].code.timeout_s"),
    (reward_pb2.Candidate(id="x", code=code_task(timeout_s=1e9)), "candidates[1].code.timeout_s"),
    (reward_pb2.Candidate(id="x", code=code_task(memory_mb=10**6)), "candidates[1].code.memory_mb"),
    (reward_pb2.Candidate(id="x", code=code_task(extraction=17)), "candidates[1].code.extraction"),
    (reward_pb2.Candidate(id="x", code=code_task(comparator=9)), "candidates[1].code.comparator"),
    (reward_pb2.Candidate(id="x", code=code_task(completion="x", io_tests=[], tests="t", stop_tokens=["\n", ""])),
     "candidates[1].code.stop_tokens[1]"),
])
def test_malformed_request_names_the_field(stub, candidate: reward_pb2.Candidate, field: str) -> None:
    request = reward_pb2.ScoreRequest(candidates=[equation("ok", "TRUE", True), candidate])
    for call in (stub.Score, lambda r, **kw: list(stub.ScoreStream(r, **kw))):
        with pytest.raises(grpc.RpcError) as info:
            call(request, timeout=10)
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert info.value.details().startswith(field + ":"), info.value.details()
    # the server keeps serving after refusing
    reply = stub.Score(reward_pb2.ScoreRequest(candidates=[equation("ok", "TRUE", True)]), timeout=10)
    assert reply.results[0].reward == 1


def test_unknown_priority_is_refused(stub) -> None:
    with pytest.raises(grpc.RpcError) as info:
        stub.Score(reward_pb2.ScoreRequest(priority=42), timeout=10)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert info.value.details().startswith("priority:")


def test_empty_batch_gets_empty_answer(stub) -> None:
    assert list(stub.Score(reward_pb2.ScoreRequest(), timeout=10).results) == []


def test_results_keep_request_order_and_ids(stub) -> None:
    candidates = [python_script(f"slow{i}", f"import time; time.sleep({0.3 * (3 - i)}); print({i})", f"{i}")
                  for i in range(3)] + [equation("eq", "\\boxed{FALSE}", False)]
    results = stub.Score(reward_pb2.ScoreRequest(candidates=candidates), timeout=60).results
    assert [r.id for r in results] == ["slow0", "slow1", "slow2", "eq"]
    assert [r.index for r in results] == [0, 1, 2, 3]
    assert all(r.verdict == reward_pb2.PASS and r.reward == 1.0 for r in results), results


def test_list_languages(stub) -> None:
    reply = stub.ListLanguages(reward_pb2.ListLanguagesRequest(), timeout=60)
    assert reply.backend == "process"
    by_key = {lang.key: lang for lang in reply.languages}
    for key in hosted():
        assert by_key[key].ready, by_key[key]
        assert by_key[key].version and by_key[key].sandbox
    for lang in reply.languages:
        assert lang.ready or lang.reason, lang
