"""The Agnostics verifier protocol: our images speak it, and the backend speaks it to external images."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import subprocess

import docker
import pytest

from reward_server.graders.code import CodeJob
from reward_server.verdicts import Verdict
from sandboxes.backends.docker.lock import ImageLock
from sandboxes.languages.samples import SUM_TESTS, SUM_TESTS_LAST_WRONG, load_samples
from sandboxes.sandbox_deaths import SANDBOX_FAILED
from tests.docker.conftest import grade, grader_for, write_lock

LUA_SUM = load_samples()["lua"].stdin.good


def agnostics_session(engine, reference: str, requests: list[dict], *options: str) -> list[dict]:
    """Run the image the way Agnostics does (`docker run -i`, JSONL in and out), with no network (and `options`)."""
    lines = "".join(json.dumps(r) + "\n" for r in requests)
    proc = subprocess.run(["docker", "-H", engine.url, "run", "-i", "--rm", "--network", "none", "--read-only",
                           "--tmpfs", "/sandbox:rw,exec,mode=1777", "--tmpfs", "/tmp:rw,exec,mode=1777", *options,
                           reference], input=lines, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def test_our_image_is_an_agnostics_verifier(engine, lock) -> None:
    cases = [{"input": "2 3\n", "output": "5\n"}, {"input": "1 1\n", "output": "2"}]
    answers = agnostics_session(engine, lock.images["lua"].reference, [
        {"code": LUA_SUM, "timeout_s": 5, "test_cases": cases},
        {"code": LUA_SUM, "timeout_s": 5, "test_cases": [{"input": "1 1\n", "output": "3\n"}, *cases]},
        {"code": "print(' 5')", "timeout_s": 5, "test_cases": [{"input": "", "output": "5"}]},
        {"code": "print('5  ')", "timeout_s": 5, "test_cases": [{"input": "", "output": "5"}]},
        {"code": "error('boom')", "timeout_s": 5, "test_cases": cases},
        {"code": "while true do end", "timeout_s": 1, "test_cases": cases},
        {"code": "print(1)", "timeout_s": 5, "test_cases": [{"input": "", "output": "1"},
                                                            {"input": "", "output": "2"}]},
    ])
    assert [a["result"] for a in answers] == ["success", "fail:wrong-output", "fail:wrong-output", "success",
                                              "fail:error", "fail:timeout", "fail:wrong-output"]
    assert answers[1]["got"] == "2\n" and answers[1]["expected"] == "3\n"
    assert answers[4]["exit_code"] != 0 and "boom" in answers[4]["stderr"]


def test_compiled_language_compiles_once_in_the_protocol(engine, lock) -> None:
    [ok, broken] = agnostics_session(engine, lock.images["cpp"].reference, [
        {"code": load_samples()["cpp"].stdin.good, "timeout_s": 5, "test_cases": [{"input": "2 3", "output": "5"}]},
        {"code": "int main( {", "timeout_s": 5, "test_cases": [{"input": "", "output": ""}]},
    ])
    assert ok["result"] == "success"
    assert broken["result"] == "fail:error" and "error" in broken["stderr"]


def verifier_image(client: docker.DockerClient, engine, base: str, name: str, script: str) -> str:
    """A stand-in external verifier image (built on one of ours for its python3), pushed and pinned."""
    dockerfile = f"FROM {base}\nCMD [\"/usr/bin/python3\", \"-c\", {json.dumps(script)}]\n"
    repository = f"{engine.registry}/reward-sandbox-test/{name}"
    client.images.build(fileobj=io.BytesIO(dockerfile.encode()), tag=f"{repository}:1", network_mode="none", rm=True)
    digest = ""
    for event in client.images.push(repository, tag="1", stream=True, decode=True):
        digest = event.get("aux", {}).get("Digest", digest)
    assert digest
    return f"{repository}@{digest}"


def as_external(lock: ImageLock, key: str, reference: str) -> ImageLock:
    return lock.with_image(key, dataclasses.replace(lock.images[key], reference=reference, image_id="",
                                                    protocol="agnostics"))


@pytest.mark.asyncio
async def test_backend_speaks_agnostics_to_an_external_verifier(start_backend, table, lock, tmp_path) -> None:
    """Pinned as an external Agnostics verifier (protocol "agnostics"), lua grades exactly as with our runner, but for
    function-style tests, which run in a process of their own: the verifier takes one source (unsupported there)."""
    external = ImageLock({"lua": dataclasses.replace(lock.images["lua"], protocol="agnostics")})
    backend = await start_backend(write_lock(external, tmp_path), warm=1)
    runner = await start_backend(warm=1, warm_languages=["lua"])
    fn = load_samples()["lua"].function
    jobs = [CodeJob("lua", fn.completion, prompt=fn.prompt, tests=fn.tests),
            CodeJob("lua", fn.wrong, prompt=fn.prompt, tests=fn.tests),
            CodeJob("lua", LUA_SUM, io_tests=SUM_TESTS),
            CodeJob("lua", LUA_SUM, io_tests=SUM_TESTS_LAST_WRONG, run_all_tests=True),
            CodeJob("lua", "io.write('5 \\n\\n')", io_tests=(("", "5"),)),
            CodeJob("lua", "while true do end", io_tests=(("", ""),), timeout_s=1)]
    graders = grader_for(backend, table), grader_for(runner, table)
    external_grades, runner_grades = [await asyncio.gather(*(grade(g, j) for j in jobs)) for g in graders]
    stdio = [Verdict.PASS, Verdict.WRONG_ANSWER, Verdict.PASS, Verdict.TIMEOUT]
    assert [g.verdict for g in runner_grades] == [Verdict.PASS, Verdict.RUNTIME_ERROR, *stdio]
    assert [g.verdict for g in external_grades] == [Verdict.INFRA_UNSUPPORTED_TEST] * 2 + stdio
    assert [t.verdict for t in external_grades[3].tests] == [Verdict.PASS, Verdict.WRONG_ANSWER]
    # an external verifier does not say what a run used: not measured, unlike our runner's runs
    assert all(t.cpu_s is None and t.peak_memory_bytes is None for t in external_grades[3].tests)
    assert all(t.cpu_s is not None and t.peak_memory_bytes for t in runner_grades[3].tests)
    assert external_grades[0].sandbox == lock.images["lua"].reference


@pytest.mark.asyncio
@pytest.mark.parametrize("name, script", [
    ("garbage", "import sys\nfor line in sys.stdin:\n    print('verifier says hello', flush=True)\n"),
    ("truncated", "import sys\nsys.stdin.readline()\nsys.stdout.write('{\"result\": \"succ')\n"),
    ("unknown", "import sys\nfor line in sys.stdin:\n    print('{\"result\": \"fail:other\"}', flush=True)\n"),
])
async def test_bad_verifier_answers_are_infra_not_wrong(
        start_backend, table, lock, engine, docker_client, tmp_path, name: str, script: str) -> None:
    reference = await asyncio.to_thread(verifier_image, docker_client, engine, lock.images["lua"].reference,
                                        name, script)
    backend = await start_backend(write_lock(as_external(lock, "lua", reference), tmp_path), warm=1,
                                  warm_languages=["lua"])
    grader = grader_for(backend, table)
    result = await grade(grader, CodeJob("lua", LUA_SUM, io_tests=SUM_TESTS))
    assert result.verdict is Verdict.INFRA_SANDBOX_ERROR, result
    assert result.verdict.is_infra
    # the run went again in a fresh container (sandbox_deaths.py), which answered the same: both were replaced
    assert backend.deaths.by_cause[SANDBOX_FAILED] == 2 and backend.deaths.retried == 1
    assert backend.stats()["lua"].replaced == 2
