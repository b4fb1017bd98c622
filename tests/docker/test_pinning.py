"""Only what the lock pins runs, and only if the local image really is the pinned one."""

from __future__ import annotations

import dataclasses

import pytest

from reward_server.graders.code import CodeJob
from reward_server.verdicts import Verdict
from sandboxes.backend import SandboxError
from sandboxes.backends.docker.lock import ImageLock, PinnedImage
from sandboxes.languages.samples import SUM_TESTS, load_samples
from tests.docker.conftest import grade, grader_for, write_lock

BOGUS_DIGEST = "sha256:" + "0" * 64


def job(key: str) -> CodeJob:
    return CodeJob(key, load_samples()[key].stdin.good, io_tests=SUM_TESTS)


@pytest.mark.asyncio
async def test_unpinned_language_is_refused(start_backend, table, lock, tmp_path) -> None:
    without_lua = ImageLock({k: v for k, v in lock.images.items() if k != "lua"})
    backend = await start_backend(write_lock(without_lua, tmp_path), warm=0)
    info = backend.describe(table.resolve("lua"))
    assert not info.pinned and not info.ready
    result = await grade(grader_for(backend, table), job("lua"))
    assert result.verdict is Verdict.INFRA_UNPINNED_LANGUAGE
    assert (await grade(grader_for(backend, table), job("python"))).verdict is Verdict.PASS


@pytest.mark.asyncio
async def test_digest_not_present_locally_is_refused(start_backend, table, lock, tmp_path) -> None:
    python = lock.images["python"]
    wrong = dataclasses.replace(python, reference=f"{python.repository}@{BOGUS_DIGEST}")
    backend = await start_backend(write_lock(lock.with_image("python", wrong), tmp_path), warm=0)
    info = backend.describe(table.resolve("python"))
    assert info.pinned and not info.ready
    assert "not present locally" in info.reason and python.digest in info.reason
    result = await grade(grader_for(backend, table), job("python"))
    assert result.verdict.is_infra and result.verdict is not Verdict.PASS


@pytest.mark.asyncio
async def test_local_content_other_than_pinned_is_refused(start_backend, table, lock, tmp_path) -> None:
    tampered = dataclasses.replace(lock.images["python"], image_id=lock.images["lua"].image_id)
    backend = await start_backend(write_lock(lock.with_image("python", tampered), tmp_path), warm=0)
    info = backend.describe(table.resolve("python"))
    assert not info.ready and "differs from the pinned" in info.reason
    assert (await grade(grader_for(backend, table), job("python"))).verdict.is_infra


@pytest.mark.asyncio
async def test_missing_image_fails_fast_at_start(start_backend, engine, lock, tmp_path) -> None:
    absent = PinnedImage(reference=f"{engine.registry}/reward-sandbox/absent@{BOGUS_DIGEST}")
    path = write_lock(lock.with_image("python", absent), tmp_path)
    with pytest.raises(SandboxError, match=r"python pool: .*absent.* not present locally.*images build python"):
        await start_backend(path, warm=1, warm_languages=["python"])


@pytest.mark.asyncio
async def test_missing_image_is_pulled_by_digest(start_backend, docker_client, table, lock) -> None:
    """A node that lacks a pinned image fetches exactly that digest from the registry, then serves it."""
    lua = lock.images["lua"]
    docker_client.images.remove(lua.reference, force=True)
    backend = await start_backend(warm=1, warm_languages=["lua"])
    assert backend.describe(table.resolve("lua")).ready
    assert docker_client.images.get(lua.reference).id == lua.image_id
    assert (await grade(grader_for(backend, table), job("lua"))).verdict is Verdict.PASS
