"""Building the sandbox images without any external registry, pushing them, and pinning them in the lock.

Recipe (sandboxes/images/): a bookworm rootfs from `debootstrap --variant=minbase` (cached as a tarball),
`docker import`ed; `base/` layers Python (the runner's interpreter), an apt helper and the unprivileged
user on it; `<language>/` is a thin Dockerfile with pinned Debian packages, topped by the runner,
sandboxes/languages.py and the language's table entry (language.json), so the runner can also serve the
Agnostics protocol alone. Push to the registry gives the manifest digest that the lock pins.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path

import docker
import docker.errors

from sandboxes import languages as languages_module
from sandboxes.docker_engine import CACHE_DIR
from sandboxes.docker_lock import ImageLock, PinnedImage
from sandboxes.docker_runtime import SANDBOX_USER, WORKDIR, runner_spec
from sandboxes.languages import Language

log = logging.getLogger(__name__)

RECIPES = Path(__file__).with_name("images")
RUNNER = RECIPES / "runner.py"
MIRROR = "http://deb.debian.org/debian"
SUITE = "bookworm"
ROOTFS_REPO = "reward-sandbox/rootfs"
BASE_TAG = "reward-sandbox/base:bookworm"
IMAGE_TAG = "bookworm"


class ImageBuildError(RuntimeError):
    """A recipe failed to build, push or verify."""


def recipe_languages() -> list[str]:
    """Language keys that have a recipe directory."""
    return sorted(p.name for p in RECIPES.iterdir() if (p / "Dockerfile").exists() and p.name != "base")


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
    lines = [line.strip() for line in output.decode("utf-8", "replace").splitlines() if line.strip()]
    return lines[0] if lines else ""


def build_language(client: docker.DockerClient, language: Language, registry: str, base: str) -> PinnedImage:
    recipe = RECIPES / language.key
    if not (recipe / "Dockerfile").exists():
        raise ImageBuildError(f"no image recipe for {language.key!r} (have: {', '.join(recipe_languages())})")
    repository = f"{registry}/reward-sandbox/{language.key}"
    with tempfile.TemporaryDirectory(prefix=f"ctx-{language.key}-") as tmp:
        context = Path(tmp)
        shutil.copy(recipe / "Dockerfile", context / "Dockerfile")
        shutil.copy(RUNNER, context / "runner.py")
        shutil.copy(languages_module.__file__, context / "languages.py")
        (context / "language.json").write_text(language_json(language))
        log.info("building %s", repository)
        build(client, context, f"{repository}:{IMAGE_TAG}", {"BASE": base})
    digest = push(client, repository)
    reference = f"{repository}@{digest}"
    image = client.images.get(reference)
    if reference not in image.attrs.get("RepoDigests", []):
        raise ImageBuildError(f"{reference} is not among the local image's digests")
    return PinnedImage(reference=reference, image_id=image.id, version=toolchain_version(client, reference, language),
                       size_bytes=int(image.attrs.get("Size", 0)))


def build_images(client: docker.DockerClient, languages: Iterable[Language], registry: str,
                 lock_path: Path, cache: Path = CACHE_DIR) -> ImageLock:
    """Build base and the given languages, push them, and pin each in the lock as soon as it is built."""
    tarball = rootfs_tarball(cache)
    rootfs = rootfs_image(client, tarball)
    build(client, RECIPES / "base", BASE_TAG, {"ROOTFS": rootfs})
    lock = ImageLock.load(lock_path)
    for language in languages:
        pinned = build_language(client, language, registry, BASE_TAG)
        lock = lock.with_image(language.key, pinned)
        lock.save(lock_path)
        log.info("pinned %s = %s (%s, %.0f MB)", language.key, pinned.reference, pinned.version,
                 pinned.size_bytes / 1e6)
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
