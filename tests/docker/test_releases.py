"""Toolchains Debian 12 lacks (julia, swift): their images unpack the official release, fetched by exact URL and
checked against the table's sha256. Where this machine cannot reach a release's host, its test skips and says so."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import hashlib
import http.server
import io
import tarfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from reward_server.graders.code import CodeJob
from reward_server.verdicts import Verdict
from sandboxes.backends.docker.backend import DockerBackend
from sandboxes.backends.docker.engine import free_port
from sandboxes.backends.docker.images import (
    BASE_TAG,
    ImageBuildError,
    ReleaseUnavailable,
    build_language,
    fetch_release,
)
from sandboxes.backends.docker.lock import ImageLock
from sandboxes.languages import Language, LanguageTable, Release, language_from_entry
from sandboxes.languages.samples import SUM_TESTS, SUM_TESTS_LAST_WRONG, load_samples
from tests.docker.conftest import build_and_pin, grade, grader_for
from tests.language_table import load_table

RELEASED = [language.key for language in load_table() if language.release]
# A made-up toolchain in a release tarball: a shell that knows its own version.
TOOL = b'#!/bin/sh\nif [ "$1" = --version ]; then echo "toytool 1.0"; exit 0; fi\nexec /bin/sh "$@"\n'


def toy_tarball() -> bytes:
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        entry = tarfile.TarInfo("toytool-1.0/bin/toytool")
        entry.size, entry.mode = len(TOOL), 0o755
        tar.addfile(entry, io.BytesIO(TOOL))
    return data.getvalue()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    """A tarball on an HTTP server on loopback: its URL."""
    (tmp_path / "toytool-1.0.tar.gz").write_bytes(toy_tarball())
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/toytool-1.0.tar.gz"
    server.shutdown()
    server.server_close()


def toy_language(url: str, sha256: str) -> Language:
    """A language whose release is served here (plain http on loopback, which the table itself would refuse)."""
    language = language_from_entry("toytool", {"source_file": "main.sh", "run": ["toytool", "{source}"],
                                               "version": ["toytool", "--version"], "packages": [],
                                               "docker_image": True})
    return dataclasses.replace(language, release=Release(url=url, sha256=sha256, bin="toytool-1.0/bin"))


def test_a_release_is_fetched_once_and_checked(served: str, tmp_path: Path) -> None:
    release = toy_language(served, hashlib.sha256(toy_tarball()).hexdigest()).release
    assert release is not None
    cached = fetch_release(release, tmp_path / "cache")
    assert cached.read_bytes() == toy_tarball()
    assert fetch_release(release, tmp_path / "cache") == cached
    with pytest.raises(ImageBuildError, match=r"has sha256 [0-9a-f]{64}, the table pins 0{64}"):
        fetch_release(Release(served, "0" * 64, "toytool-1.0/bin"), tmp_path / "other")
    assert list((tmp_path / "other").rglob("*.tar.gz*")) == []


def test_an_unreachable_release_says_why(tmp_path: Path) -> None:
    unreachable = Release(f"http://127.0.0.1:{free_port()}/x.tar.gz", "0" * 64, "bin")
    with pytest.raises(ReleaseUnavailable, match=r"cannot fetch the official release http://127\.0\.0\.1:\d+/x"):
        fetch_release(unreachable, tmp_path)


@pytest.mark.asyncio
async def test_release_recipe_unpacks_the_tarball_onto_the_path(served, tmp_path, engine, docker_client,
                                                               lock_path) -> None:
    """The recipe end to end on a toy release: fetched, checked, unpacked, linked, pinned, and grading."""
    language = toy_language(served, hashlib.sha256(toy_tarball()).hexdigest())
    pinned = build_language(docker_client, language, engine.registry, BASE_TAG, tmp_path)   # base: lock_path built it
    assert pinned.version == "toytool 1.0"
    path = tmp_path / "images.lock"
    ImageLock({"toytool": pinned}).save(path)
    backend = DockerBackend(path, table=LanguageTable([language]), warm=1, docker_url=engine.url)
    await backend.start(2)
    try:
        grader = grader_for(backend, backend.table)
        result = await grade(grader, CodeJob("toytool", 'read a b\necho $((a + b))\n', io_tests=SUM_TESTS))
    finally:
        await backend.close()
    assert result.verdict is Verdict.PASS and result.sandbox == pinned.reference, result


@pytest.mark.asyncio
@pytest.mark.parametrize("key", RELEASED)
async def test_official_release_image_grades_its_samples(key, engine, tmp_path, table, start_backend) -> None:
    try:
        await asyncio.to_thread(fetch_release, table.resolve(key).release)
    except ReleaseUnavailable as exc:
        pytest.skip(f"{key} is not ready: its image needs the official release, and {exc}")
    path = await asyncio.to_thread(build_and_pin, engine, (key,), tmp_path / "images.lock")
    backend = await start_backend(path, warm=1)
    grader = grader_for(backend, table)
    fn, io = load_samples()[key].function, load_samples()[key].stdin.good
    results = await asyncio.gather(*(grade(grader, job) for job in (
        CodeJob(key, fn.completion, prompt=fn.prompt, tests=fn.tests),
        CodeJob(key, fn.wrong, prompt=fn.prompt, tests=fn.tests),
        CodeJob(key, io, io_tests=SUM_TESTS),
        CodeJob(key, io, io_tests=SUM_TESTS_LAST_WRONG))))
    assert [r.verdict for r in results] == [Verdict.PASS, Verdict.RUNTIME_ERROR, Verdict.PASS, Verdict.WRONG_ANSWER]
