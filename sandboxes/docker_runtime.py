"""What a sandbox container looks like from the inside: its user, its paths, its copy of a language.

Shared by the image builder (which bakes the language table's entry and sandboxes/languages.py into the
image, so the runner can serve the Agnostics protocol on its own with the very same argv rendering) and
the docker backend (which renders the argv on the host and sends it with every step).
"""

from __future__ import annotations

import dataclasses

from sandboxes.languages import Language

WORKDIR = "/sandbox"
SANDBOX_USER = "65534:65534"
RUNNER_DIR = "/opt/sandbox"


def runner_spec(language: Language) -> dict:
    """The language table entry as JSON, for Language(**spec) inside the image."""
    return {name: list(value) if isinstance(value, tuple) else value
            for name, value in dataclasses.asdict(language).items()}
