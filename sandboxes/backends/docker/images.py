"""Building the sandbox images without any external registry, pushing them, and pinning them in the lock.

Recipes (recipes/ here): a bookworm rootfs from `debootstrap --variant=minbase` (cached as a tarball),
`docker import`ed; `base/` layers Python (the runner's interpreter), an apt helper and the unprivileged
user on it; `language/` is the one thin recipe of every language the table gives an image (`docker_image`):
its pinned Debian packages (the table's `packages`, also what setup.sh installs on a host) and its `setup`
step, topped by the runner, the sandboxes modules it imports (BAKED_MODULES), the language's table entry
(language.json), so the runner can also serve the Agnostics protocol alone, and what its tree of toolchain
artifacts is built from as root by the recipe (bake_artifacts.py): its samples file and compiler snapshot script, if
it needs them (toolchain_artifacts.inputs). `release/` is the same for a toolchain Debian lacks, plus its official
release tarball, fetched here once (cached by checksum) and checked against the table's sha256. Push to the registry
gives the manifest digest that the lock pins. Languages build a few at a time: apt's downloads then overlap another
build's unpacking.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import hashlib
import json
import logging
import os
import shutil
import subprocess
import tempfile
import threading
import urllib.request
from collections.abc import Iterable
from pathlib import Path

import docker
import docker.errors

from sandboxes.backends.docker.engine import CACHE_DIR
from sandboxes.backends.docker.lock import ImageLock, PinnedImage
from sandboxes.backends.docker.runtime import BAKED_MODULES, SANDBOX_USER, WORKDIR, runner_spec
from sandboxes.languages import Language, LanguageTable, Release
from sandboxes.toolchain_artifacts import inputs

log = logging.getLogger(__name__)

RECIPES = Path(__file__).with_name("recipes")
LANGUAGE_RECIPE = RECIPES / "language"
RELEASE_RECIPE = RECIPES / "release"
RUNNER = Path(__file__).with_name("runner.py")
PROJECT_ROOT = Path(__file__).resolve().parents[3]   # holds the sandboxes package
MIRROR = "http://deb.debian.org/debian"
SUITE = "bookworm"
ROOTFS_REPO = "reward-sandbox/rootfs"
BASE_TAG = "reward-sandbox/base:bookworm"
IMAGE_TAG = "bookworm"
PARALLEL_BUILDS = 3          # 24 languages from cold: 244 s at 3, 510 s one at a time (2 cores, README)
RELEASE_TIMEOUT_S = 60.0


class ImageBuildError(RuntimeError):
    """A recipe failed to build, push or verify."""


class ReleaseUnavailable(ImageBuildError):
    """A toolchain's official release could not be fetched (its host is unreachable from here)."""


def recipe_languages() -> list[str]:
    """Language keys the table gives an image (`docker_image = true`)."""
    return sorted(language.key for language in LanguageTable.load() if language.docker_image)


def rootfs_tarball(cache: Path = CACHE_DIR) -> Path:
    """The debootstrap'd minbase rootfs as a tarball, built once and reused (debootstrap is the slow step)."""
    tarball = cache / f"{SUITE}-minbase.tar"
    if tarball.exists():
        return tarball
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache, prefix="rootfs-") as tmp:
        rootfs = Path(tmp) / "rootfs"
        log.info("debootstrap %s into %s (once; cached as %s)", SUITE, rootfs, tarball)
        run(["debootstrap", "--variant=minbase", SUITE, str(rootfs), MIRROR])
        partial = Path(tmp) / "rootfs.tar"
        run(["tar", "--numeric-owner", "--sort=name", "-C", str(rootfs), "-cf", str(partial), "."])
        partial.replace(tarball)
    return tarball


def run(argv: list[str]) -> None:
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode:
        raise ImageBuildError(f"{' '.join(argv[:3])} failed ({proc.returncode}): {proc.stderr[-2000:]}")


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def fetch_release(release: Release, cache: Path = CACHE_DIR) -> Path:
    """The release tarball, fetched once into the cache (named by its checksum) and checked against the table."""
    tarball = cache / "releases" / f"{release.sha256}.tar.gz"
    if tarball.exists():
        return tarball
    tarball.parent.mkdir(parents=True, exist_ok=True)
    partial = tarball.with_name(f"{tarball.name}.{os.getpid()}.{threading.get_ident()}.partial")
    digest = hashlib.sha256()
    log.info("fetching %s", release.url)
    try:
        with urllib.request.urlopen(release.url, timeout=RELEASE_TIMEOUT_S) as response, open(partial, "wb") as out:
            while chunk := response.read(1 << 20):
                digest.update(chunk)
                out.write(chunk)
    except OSError as exc:      # urllib's URLError and HTTPError are OSErrors
        partial.unlink(missing_ok=True)
        raise ReleaseUnavailable(f"cannot fetch the official release {release.url}: {exc}") from exc
    if digest.hexdigest() != release.sha256:
        partial.unlink()
        raise ImageBuildError(f"{release.url} has sha256 {digest.hexdigest()}, the table pins {release.sha256}")
    partial.replace(tarball)
    return tarball


def rootfs_image(client: docker.DockerClient, tarball: Path) -> str:
    """Import the tarball once per content: the tag names the tarball's hash."""
    tag = f"{ROOTFS_REPO}:{file_sha256(tarball)[:16]}"
    try:
        client.images.get(tag)
    except docker.errors.ImageNotFound:
        log.info("docker import %s as %s", tarball, tag)
        repo, _, version = tag.partition(":")
        client.api.import_image_from_file(str(tarball), repository=repo, tag=version)
    return tag


def build(client: docker.DockerClient, context: Path, tag: str, buildargs: dict[str, str]) -> None:
    try:
        client.images.build(path=str(context), tag=tag, buildargs=buildargs, network_mode="host",
                            rm=True, forcerm=True, pull=False)
    except docker.errors.BuildError as exc:
        tail = "".join(str(line.get("stream", line.get("error", ""))) for line in exc.build_log)[-3000:]
        raise ImageBuildError(f"building {tag} failed: {exc.msg}\n{tail}") from exc


def language_json(language: Language) -> str:
    """The language's table entry, for the runner to serve the Agnostics protocol on its own."""
    return json.dumps(runner_spec(language), indent=2, sort_keys=True) + "\n"


def push(client: docker.DockerClient, repository: str) -> str:
    """Push the tag and return the manifest digest the registry assigned."""
    digest = ""
    for event in client.images.push(repository, tag=IMAGE_TAG, stream=True, decode=True):
        if "error" in event:
            raise ImageBuildError(f"pushing {repository}:{IMAGE_TAG}: {event['error']}")
        digest = event.get("aux", {}).get("Digest", digest)
    if not digest:
        raise ImageBuildError(f"the registry reported no digest for {repository}:{IMAGE_TAG}")
    return digest


def toolchain_version(client: docker.DockerClient, reference: str, language: Language) -> str:
    """The version line, measured inside the image with no network (the lock records what really runs)."""
    try:
        output = client.containers.run(
            reference, command=list(language.version), network_mode="none", user=SANDBOX_USER,
            working_dir=WORKDIR, read_only=True, tmpfs={WORKDIR: "rw,size=16m", "/tmp": "rw,size=16m"},
            cap_drop=["ALL"], stdout=True, stderr=True, remove=True, environment=dict(language.env))
    except docker.errors.ContainerError as exc:
        raise ImageBuildError(f"{language.key}: version command failed: {exc.stderr!r}") from exc
    lines = [line.strip() for line in output.decode("utf-8", "replace").splitlines()
             if line.strip() and "warning" not in line.lower()]   # the JVM's warnings are not the version
    return lines[0] if lines else ""


def build_language(client: docker.DockerClient, language: Language, registry: str, base: str,
                   cache: Path = CACHE_DIR) -> PinnedImage:
    if not language.docker_image:
        raise ImageBuildError(f"no image recipe for {language.key!r} (have: {', '.join(recipe_languages())})")
    repository = f"{registry}/reward-sandbox/{language.key}"
    tarball = fetch_release(language.release, cache) if language.release else None
    buildargs = {"BASE": base, "PACKAGES": " ".join(language.packages), "SETUP": language.setup}
    if language.release:
        buildargs["RELEASE_BIN"] = language.release.bin
    with tempfile.TemporaryDirectory(prefix=f"ctx-{language.key}-") as tmp:
        context = Path(tmp)
        shutil.copy((RELEASE_RECIPE if tarball else LANGUAGE_RECIPE) / "Dockerfile", context / "Dockerfile")
        if tarball:
            shutil.copy(tarball, context / "release.tar.gz")
        shutil.copy(RUNNER, context / "runner.py")
        for path in (*(PROJECT_ROOT / module for module in BAKED_MODULES), *inputs(language)):
            (context / path.relative_to(PROJECT_ROOT)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, context / path.relative_to(PROJECT_ROOT))
        (context / "language.json").write_text(language_json(language))
        log.info("building %s", repository)
        build(client, context, f"{repository}:{IMAGE_TAG}", buildargs)
    digest = push(client, repository)
    reference = f"{repository}@{digest}"
    image = client.images.get(reference)
    if reference not in image.attrs.get("RepoDigests", []):
        raise ImageBuildError(f"{reference} is not among the local image's digests")
    return PinnedImage(reference=reference, image_id=image.id, version=toolchain_version(client, reference, language),
                       size_bytes=int(image.attrs.get("Size", 0)))


def build_images(client: docker.DockerClient, languages: Iterable[Language], registry: str,
                 lock_path: Path, cache: Path = CACHE_DIR) -> ImageLock:
    """Build base and the given languages (PARALLEL_BUILDS at a time), push them, and pin each in the lock as soon
    as it is built. A language that fails leaves the others building; then one error names every failure."""
    tarball = rootfs_tarball(cache)
    rootfs = rootfs_image(client, tarball)
    build(client, RECIPES / "base", BASE_TAG, {"ROOTFS": rootfs})
    lock = ImageLock.load(lock_path)
    pinning = threading.Lock()
    failures: dict[str, str] = {}

    def build_and_pin(language: Language) -> None:
        nonlocal lock
        try:
            pinned = build_language(client, language, registry, BASE_TAG, cache)
        except (ImageBuildError, docker.errors.DockerException) as exc:
            log.error("%s: not built: %s", language.key, exc)
            failures[language.key] = str(exc)
            return
        with pinning:
            lock = lock.with_image(language.key, pinned)
            lock.save(lock_path)
        log.info("pinned %s = %s (%s, %.0f MB)", language.key, pinned.reference, pinned.version,
                 pinned.size_bytes / 1e6)

    with concurrent.futures.ThreadPoolExecutor(PARALLEL_BUILDS, thread_name_prefix="image") as pool:
        list(pool.map(build_and_pin, languages))
    if failures:
        raise ImageBuildError("not built (the others are pinned in the lock): " + "; ".join(
            f"{key}: {why}" for key, why in sorted(failures.items())))
    return lock


@dataclasses.dataclass(frozen=True)
class ImageRow:
    language: str
    version: str
    reference: str
    size_mb: float


def image_table(lock: ImageLock) -> list[ImageRow]:
    return [ImageRow(key, image.version, image.reference, round(image.size_bytes / 1e6, 1))
            for key, image in sorted(lock.images.items())]
