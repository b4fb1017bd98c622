"""A real `reward-server serve --backend docker` on loopback: verdicts, digests, refusal, clean shutdown."""

from __future__ import annotations

import pytest

from reward_server.client import RewardClient
from sandboxes.backends.docker import LABEL
from sandboxes.docker_lock import ImageLock, PinnedImage
from tests.candidates import function_style, stdio, verdict_name
from tests.docker.conftest import BUILT, write_lock
from tests.programs import IO_FAIL, IO_PASS, PROGRAMS


@pytest.fixture
def docker_env(monkeypatch, engine, lock_path):
    monkeypatch.setenv("DOCKER_HOST", engine.url)
    monkeypatch.setenv("REWARD_SANDBOX_LOCK", str(lock_path))


def test_server_grades_through_warm_containers(docker_env, start_server, lock, docker_client) -> None:
    server = start_server("--backend", "docker", "--workers", "2")
    with RewardClient(server.address) as client:
        languages = {lang.key: lang for lang in client.languages().languages}
        for key in BUILT:
            assert languages[key].ready and languages[key].sandbox == lock.images[key].reference
        assert not languages["ruby"].ready
        candidates = []
        for key in BUILT:
            p = PROGRAMS[key]
            candidates += [function_style(f"{key}/fn-pass", key, p.prompt, p.completion, p.tests),
                           function_style(f"{key}/fn-fail", key, p.prompt, p.wrong, p.tests),
                           stdio(f"{key}/io-pass", key, p.io, IO_PASS),
                           stdio(f"{key}/io-fail", key, p.io, IO_FAIL)]
        candidates.append(stdio("ruby/unpinned", "ruby", PROGRAMS["ruby"].io, IO_PASS))
        results = {r.id: r for r in client.score(candidates, timeout_s=600)}
    for key in BUILT:
        assert [verdict_name(results[f"{key}/{case}"]) for case in ("fn-pass", "fn-fail", "io-pass", "io-fail")] == [
            "PASS", "RUNTIME_ERROR", "PASS", "WRONG_ANSWER"], key
        assert results[f"{key}/io-pass"].sandbox == lock.images[key].reference
    unpinned = results["ruby/unpinned"]
    assert verdict_name(unpinned) == "INFRA_UNPINNED_LANGUAGE" and not unpinned.HasField("reward")
    assert docker_client.containers.list(all=True, filters={"label": LABEL})
    assert server.stop() == 0, server.stderr_text()
    assert docker_client.containers.list(all=True, filters={"label": LABEL}) == []


def test_server_with_a_missing_pinned_image_fails_fast(monkeypatch, engine, lock, tmp_path, start_server) -> None:
    digest = lock.images["python"].digest
    absent = ImageLock({"python": PinnedImage(reference=f"{engine.registry}/reward-sandbox/gone@{digest}")})
    monkeypatch.setenv("DOCKER_HOST", engine.url)
    monkeypatch.setenv("REWARD_SANDBOX_LOCK", str(write_lock(absent, tmp_path)))
    with pytest.raises(RuntimeError, match="images build python"):
        start_server("--backend", "docker")
