"""Bakes the image's toolchain artifacts: its precompiled headers, class archive or compiler snapshot
(sandboxes/toolchain_artifacts.py says what they are and how they are built): the recipe runs
`python3 -m sandboxes.backends.docker.bake_artifacts` as root once the language's packages and setup step are in,
which builds the baked language's whole tree at MOUNT in the image's root, read-only to every container. A build that
fails fails the image: it is built once and pinned, so it carries what its compiles ask for. A language with none
gets no tree.
"""

from __future__ import annotations

import logging
import pathlib
import sys

from sandboxes.backends.docker.runtime import baked_language
from sandboxes.toolchain_artifacts import MOUNT, BuildError, artifacts, build


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    language = baked_language()
    names = artifacts(language)
    if not names:
        return
    tree = pathlib.Path(MOUNT)
    tree.mkdir(mode=0o755)
    try:
        for name in names:
            build(language, name, tree)
    except BuildError as e:
        sys.exit(str(e))


if __name__ == "__main__":
    main()
