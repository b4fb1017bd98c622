"""The images' toolchain artifacts (sandboxes/toolchain_artifacts.py): precompiled headers, class archives and
compiler snapshots, built into the image, root's and read-only; a compile in a container loads what fits its source
(GCC's -H and the JVM's class-loading log say so; tsc starts from its snapshot there), the runner's Agnostics compile
too, a clojure run maps its runtime's archive, and verdicts, diagnostics and output are those without. The programs
and helpers are the process backend's contract's (tests/sandboxes/test_toolchain_artifacts.py). No timings are
asserted. cpp comes from the few-language lock; the others from the every-language one (kotlin, scala, typescript and
clojure are only there), which the differential test builds anyway."""

from __future__ import annotations

import pathlib

import pytest

from sandboxes.backends.docker.images import language_json
from sandboxes.backends.docker.lock import ImageLock
from sandboxes.backends.docker.runtime import LANGUAGE_FILE, SANDBOX_USER
from sandboxes.languages import Language, LanguageTable
from sandboxes.results import RunStatus
from sandboxes.toolchain_artifacts import ARCHIVE, FIRST_INCLUDE, MOUNT, RUN_ARCHIVE, SNAPSHOT
from tests.docker.test_agnostics import agnostics_session
from tests.sandboxes.test_toolchain_artifacts import (
    CLASS_ARCHIVE,
    HEADERS,
    LCB,
    LIMITS,
    MULTIPL_E,
    RUN_CLASS_ARCHIVE,
    SHARED,
    SNAPSHOT_KIND,
    STDIN,
    TEMPLATE_ERROR,
    TWICE,
    TYPE_ERRORS,
    jvm_flags,
    program,
    showing_includes,
)
from tests.workspaces import assert_same, compile_and_run, run

LOADS = {LCB: "0/bits/stdc++.h.gch", TWICE: "1/bits/stdc++.h.gch", MULTIPL_E: "2/assert.h.gch"}


def tree(docker_client, reference: str) -> set[str]:
    """Every path under MOUNT in the image, with its owner and mode, as the sandbox user sees it."""
    listing = docker_client.containers.run(
        reference, ["find", MOUNT, "-printf", "%u:%g %m %p\\n"], user=SANDBOX_USER, network_mode="none",
        read_only=True, cap_drop=["ALL"], remove=True)
    return set(listing.decode().splitlines())


def expected_tree(language: Language) -> set[str]:
    """What the table says the language's tree holds: a directory per prefix, the class archives, the snapshot."""
    entries = {f"root:root 755 {MOUNT}"}
    for index, prefix in enumerate(language.precompiled_headers.prefixes if language.precompiled_headers else ()):
        header = pathlib.PurePosixPath(f"{MOUNT}/{index}", FIRST_INCLUDE.match(prefix).group(1))
        entries |= {f"root:root 755 {directory}" for directory in header.parents if str(directory).startswith(MOUNT)}
        entries |= {f"root:root 644 {header}", f"root:root 644 {header}.gch"}
    if language.class_archive is not None:
        entries.add(f"root:root 644 {MOUNT}/{ARCHIVE}")
    if language.compiler_snapshot is not None:
        entries.add(f"root:root 644 {MOUNT}/{SNAPSHOT}")
    if language.run_class_archive is not None:
        entries.add(f"root:root 644 {MOUNT}/{RUN_ARCHIVE}")
    return entries


def pinned(request: pytest.FixtureRequest, key: str) -> tuple[pathlib.Path, ImageLock]:
    """The lock that pins `key`'s image: the few-language one where it is there, else the every-language one."""
    path = request.getfixturevalue("lock_path")
    if key not in ImageLock.load(path).images:
        path = request.getfixturevalue("imaged_lock_path")
    return path, ImageLock.load(path)


@pytest.mark.parametrize("key", [*HEADERS.keys, *CLASS_ARCHIVE.keys, *SNAPSHOT_KIND.keys, *RUN_CLASS_ARCHIVE.keys])
def test_the_image_carries_the_tree_root_owned_and_read_only(request, docker_client, table, key) -> None:
    _, lock = pinned(request, key)
    assert tree(docker_client, lock.images[key].reference) == expected_tree(table.resolve(key))


@pytest.mark.asyncio
async def test_a_cpp_compile_in_a_container_loads_the_header_that_fits(start_backend, table) -> None:
    backend = await start_backend(warm=1, warm_languages=["cpp"])
    cpp = showing_includes(table.resolve("cpp"))
    for source, header in LOADS.items():
        compiled, _ = await compile_and_run(backend, cpp, source, LIMITS)
        assert compiled.status is RunStatus.OK, compiled
        assert f"! {MOUNT}/{header}\n".encode() in compiled.stderr, compiled.stderr[:2000]
    compiled, _ = await compile_and_run(backend, cpp, "// a comment first\n" + LCB, LIMITS)
    assert compiled.status is RunStatus.OK, compiled
    assert b".gch" not in compiled.stderr


@pytest.mark.asyncio
async def test_cpp_verdicts_and_diagnostics_are_those_of_the_compile_without_it(start_backend, table) -> None:
    backend = await start_backend(warm=1, warm_languages=["cpp"])
    cpp = table.resolve("cpp")
    for source in (LCB, MULTIPL_E, TEMPLATE_ERROR, TWICE):
        with_header = await compile_and_run(backend, cpp, source, LIMITS, STDIN)
        assert_same(with_header, await compile_and_run(backend, HEADERS.without(cpp), source, LIMITS, STDIN))
        compiled = with_header[0]
        assert compiled.status is (RunStatus.EXIT_NONZERO if source is TEMPLATE_ERROR else RunStatus.OK), compiled
        assert (b"error:" in compiled.stderr) == (source is TEMPLATE_ERROR)


@pytest.mark.parametrize("key", CLASS_ARCHIVE.keys)
@pytest.mark.asyncio
async def test_a_jvm_compile_in_a_container_maps_the_archive_under_xshare_on(request, start_backend, table,
                                                                            key) -> None:
    path, _ = pinned(request, key)
    backend = await start_backend(path, warm=1, warm_languages=[key])
    language = table.resolve(key)
    strict = jvm_flags(language, "compile", "-Xlog:class+load", "-Xshare:on")
    compiled, _ = await compile_and_run(backend, strict, TYPE_ERRORS[key], LIMITS)
    assert compiled.status is RunStatus.EXIT_NONZERO and compiled.stderr, compiled
    assert compiled.stdout.count(SHARED) > 1000, compiled.stdout[-2000:]
    plain, _ = await compile_and_run(backend, jvm_flags(CLASS_ARCHIVE.without(language), "compile", "-Xlog:class+load"),
                                     TYPE_ERRORS[key], LIMITS)
    assert SHARED not in plain.stdout
    assert_same(await compile_and_run(backend, language, TYPE_ERRORS[key], LIMITS),
                await compile_and_run(backend, CLASS_ARCHIVE.without(language), TYPE_ERRORS[key], LIMITS))


@pytest.mark.parametrize(("key", "showing", "evidence"), [
    ("cpp", showing_includes, f"! {MOUNT}/0/bits/stdc++.h.gch\n"),
    ("java", lambda java: jvm_flags(java, "compile", "-Xlog:class+load"), SHARED.decode()),
])
def test_the_runners_agnostics_compile_loads_them_too(request, engine, table: LanguageTable, tmp_path, key, showing,
                                                      evidence) -> None:
    """The image's own language.json, its compile made to show what it loads: a compile error hands its output back."""
    _, lock = pinned(request, key)
    spec = tmp_path / "language.json"
    spec.write_text(language_json(showing(table.resolve(key))))
    spec.chmod(0o644)
    source = TEMPLATE_ERROR if key == "cpp" else TYPE_ERRORS[key]
    [answer] = agnostics_session(engine, lock.images[key].reference, [
        {"code": source, "timeout_s": 5, "test_cases": [{"input": "", "output": ""}]}],
        "--mount", f"type=bind,source={spec},target={LANGUAGE_FILE},readonly")
    assert answer["result"] == "fail:error", answer
    assert evidence in answer["stdout"] + answer["stderr"], (answer["stdout"][-2000:], answer["stderr"][-2000:])


@pytest.mark.asyncio
async def test_tsc_starts_from_the_images_snapshot_and_compiles_as_tsc(request, docker_client, start_backend,
                                                                         table) -> None:
    path, lock = pinned(request, "typescript")
    version = docker_client.containers.run(
        lock.images["typescript"].reference, ["node", "--snapshot-blob", f"{MOUNT}/{SNAPSHOT}", "--", "--version"],
        user=SANDBOX_USER, network_mode="none", read_only=True, cap_drop=["ALL"], remove=True)
    assert version.decode().startswith("Version "), version
    backend = await start_backend(path, warm=1, warm_languages=["typescript"])
    typescript = table.resolve("typescript")
    got = await compile_and_run(backend, typescript, TYPE_ERRORS["typescript"], LIMITS)
    assert got[0].status is RunStatus.EXIT_NONZERO and b"error TS2322" in got[0].stdout, got
    assert_same(got, await compile_and_run(backend, SNAPSHOT_KIND.without(typescript), TYPE_ERRORS["typescript"],
                                           LIMITS))


@pytest.mark.parametrize("key", RUN_CLASS_ARCHIVE.keys)
@pytest.mark.asyncio
async def test_a_jvm_run_in_a_container_maps_the_runtimes_archive(request, start_backend, table, key) -> None:
    path, _ = pinned(request, key)
    backend = await start_backend(path, warm=1, warm_languages=[key])
    language = table.resolve(key)
    strict = jvm_flags(language, "run", "-Xlog:class+load", "-Xshare:on")
    ran = await run(backend, strict, program(key, "good"), LIMITS, STDIN)
    assert ran.status is RunStatus.OK and ran.stdout.count(SHARED) > 1000, ran
    plain = await run(backend, jvm_flags(RUN_CLASS_ARCHIVE.without(language), "run", "-Xlog:class+load"),
                      program(key, "good"), LIMITS, STDIN)
    assert SHARED not in plain.stdout
    crash = program(key, "crash")
    assert_same(await compile_and_run(backend, language, crash, LIMITS, STDIN),
                await compile_and_run(backend, RUN_CLASS_ARCHIVE.without(language), crash, LIMITS, STDIN))
