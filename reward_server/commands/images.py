"""`reward-server images`: build the sandbox images, push them to a registry, pin them in the lock."""

from __future__ import annotations

import argparse
import logging
import os
from pathlib import Path

from sandboxes.backends.docker.lock import DEFAULT_LOCK
from sandboxes.languages import LanguageTable, UnknownLanguage

log = logging.getLogger(__name__)


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    images = subparsers.add_parser("images", help="build, push and pin the docker backend's images")
    actions = images.add_subparsers(dest="images_command", required=True)
    build = actions.add_parser("build", help="build images (default: every language with a recipe), push, pin")
    build.add_argument("languages", nargs="*", metavar="LANG", help="language keys or aliases")
    build.add_argument("--registry", required=True, help="registry to push to, HOST:PORT")
    build.add_argument("--lock", type=Path, default=DEFAULT_LOCK, help="lock file to update")
    build.add_argument("--docker-host", default=os.environ.get("DOCKER_HOST"),
                       help="engine URL (default: DOCKER_HOST or the system socket)")
    build.set_defaults(func=run_build)


def run_build(args: argparse.Namespace) -> int:
    # The Docker SDK is the [docker] extra: only this subcommand needs it.
    import docker
    import docker.errors

    from sandboxes.backends.docker.images import ImageBuildError, build_images, image_table, recipe_languages

    table = LanguageTable.load()
    try:
        languages = [table.resolve(name) for name in (args.languages or recipe_languages())]
    except UnknownLanguage as exc:
        log.error("%s", exc)
        return 2
    try:
        client = docker.DockerClient(base_url=args.docker_host, timeout=600) if args.docker_host \
            else docker.from_env(timeout=600)
        client.ping()
    except docker.errors.DockerException as exc:
        log.error("cannot reach the Docker engine: %s", exc)
        return 1
    try:
        lock = build_images(client, languages, args.registry, args.lock)
    except (ImageBuildError, docker.errors.DockerException) as exc:
        log.error("%s", exc)
        return 1
    finally:
        client.close()
    built = {language.key for language in languages}
    print(f"{'language':<12} {'toolchain':<40} {'MB':>7}  image")
    for row in image_table(lock):
        if row.language in built:
            print(f"{row.language:<12} {row.version[:40]:<40} {row.size_mb:>7.1f}  {row.reference}")
    print(f"pinned in {args.lock}")
    return 0
