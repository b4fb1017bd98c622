"""A real `reward-server serve --backend docker` on loopback: verdicts, digests, refusal, clean shutdown."""

from __future__ import annotations

import pytest
import requests

from reward_server.client import RewardClient
from sandboxes.backends.docker.backend import LABEL
from sandboxes.backends.docker.lock import ImageLock, PinnedImage
from sandboxes.languages.samples import SUM_TESTS, SUM_TESTS_LAST_WRONG, load_samples
from tests.candidates import function_style, stdio, verdict_name
from tests.docker.conftest import BUILT, build_and_pin, write_lock

NEW_LANGUAGE = "elixir"     # one of the languages issue 13 added
MANIFEST = "application/vnd.docker.distribution.manifest.v2+json"


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
            fn, io = load_samples()[key].function, load_samples()[key].stdin.good
            candidates += [function_style(f"{key}/fn-pass", key, fn.prompt, fn.completion, fn.tests),
                           function_style(f"{key}/fn-fail", key, fn.prompt, fn.wrong, fn.tests),
                           stdio(f"{key}/io-pass", key, io, SUM_TESTS),
                           stdio(f"{key}/io-fail", key, io, SUM_TESTS_LAST_WRONG)]
        candidates.append(stdio("ruby/unpinned", "ruby", load_samples()["ruby"].stdin.good, SUM_TESTS))
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


def test_a_new_language_is_built_pushed_pinned_and_served(monkeypatch, engine, tmp_path, start_server) -> None:
    """`images build` of one language pushes it to the local registry and pins it; a docker server grades with it."""
    path = build_and_pin(engine, (NEW_LANGUAGE,), tmp_path / "images.lock")
    pinned = ImageLock.load(path).images[NEW_LANGUAGE]
    manifest = requests.get(f"http://{engine.registry}/v2/reward-sandbox/{NEW_LANGUAGE}/manifests/{pinned.digest}",
                            headers={"Accept": MANIFEST}, timeout=30)
    assert manifest.status_code == 200 and manifest.headers["Docker-Content-Digest"] == pinned.digest
    monkeypatch.setenv("DOCKER_HOST", engine.url)
    monkeypatch.setenv("REWARD_SANDBOX_LOCK", str(path))
    server = start_server("--backend", "docker", "--workers", "2")
    fn, io = load_samples()[NEW_LANGUAGE].function, load_samples()[NEW_LANGUAGE].stdin.good
    with RewardClient(server.address) as client:
        language = next(lang for lang in client.languages().languages if lang.key == NEW_LANGUAGE)
        assert language.ready and language.sandbox == pinned.reference and language.version == pinned.version
        results = client.score([function_style("fn-pass", NEW_LANGUAGE, fn.prompt, fn.completion, fn.tests),
                                function_style("fn-fail", NEW_LANGUAGE, fn.prompt, fn.wrong, fn.tests),
                                stdio("io-pass", NEW_LANGUAGE, io, SUM_TESTS),
                                stdio("io-fail", NEW_LANGUAGE, io, SUM_TESTS_LAST_WRONG)], timeout_s=600)
    assert [verdict_name(r) for r in results] == ["PASS", "RUNTIME_ERROR", "PASS", "WRONG_ANSWER"], results
    assert {r.sandbox for r in results} == {pinned.reference}
    assert server.stop() == 0, server.stderr_text()
