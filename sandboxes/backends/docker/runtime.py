"""What a sandbox container looks like from the inside: its user, its paths, its copy of a language, and
the job by which the runner is asked to execute one step.

Shared by the image builder (which bakes the language's entry, its samples and the modules below into the
image, so the runner can serve the Agnostics protocol on its own with the very same argv rendering and policy, and
the recipe can build the language's tree of toolchain artifacts), the docker backend (which renders every step on
the host and sends it as a job) and the runner.
"""

from __future__ import annotations

import base64
import dataclasses
import json

from sandboxes.languages import Language, Release, language_from_entry
from sandboxes.policy import Step

WORKDIR = "/sandbox"
SANDBOX_USER = "65534:65534"
RUNNER_DIR = "/opt/sandbox"
LANGUAGE_FILE = f"{RUNNER_DIR}/language.json"
# The project's modules the image carries (standard library only), as package paths: what the runner imports, and
# the recipe's build of the toolchain artifacts (bake_artifacts.py). (tests/sandboxes/test_baked_runner.py starts the
# one and imports the other from exactly these, so a missing one fails there.)
BAKED_MODULES = ("sandboxes/__init__.py", "sandboxes/languages/__init__.py", "sandboxes/languages/model.py",
                 "sandboxes/languages/schema.toml", "sandboxes/languages/folders.py", "sandboxes/languages/table.py",
                 "sandboxes/languages/samples.py", "sandboxes/results.py", "sandboxes/policy.py",
                 "sandboxes/toolchain_artifacts.py", "sandboxes/trees.py", "sandboxes/backend.py",
                 "sandboxes/sandbox_deaths.py", "sandboxes/split/__init__.py",
                 "sandboxes/backends/__init__.py", "sandboxes/backends/kind.py",
                 "sandboxes/backends/process/__init__.py", "sandboxes/backends/docker/__init__.py",
                 "sandboxes/backends/docker/runtime.py", "sandboxes/backends/docker/bake_artifacts.py")


def runner_spec(language: Language) -> dict:
    """The language table entry as JSON (LANGUAGE_FILE in the image; baked_language reads it back)."""
    return {name: list(value) if isinstance(value, tuple) else value
            for name, value in dataclasses.asdict(language).items()}


def baked_language(path: str = LANGUAGE_FILE) -> Language:
    """The image's language: runner_spec's JSON read back by the table's own loader (unset fields are null there).
    Its release, which the image was built from, is taken as it is: where it may be fetched from is the builder's
    rule, not the image's."""
    with open(path) as f:
        spec = json.load(f)
    release = spec.pop("release")
    language = language_from_entry(spec.pop("key"), {name: value for name, value in spec.items() if value is not None})
    return language if release is None else dataclasses.replace(language, release=Release(**release))


def runner_job(step: Step, stdin: bytes) -> dict:
    """The runner's `exec` job for one step (0 = no CPU budget, CPU-time rlimit or address-space limit)."""
    limits = step.limits
    return {"argv": list(step.argv), "env": dict(step.env), "stdin_b64": base64.b64encode(stdin).decode(),
            "wall_s": step.wall_s, "cpu_budget_s": step.cpu_budget_s or 0, "cpu_rlimit_s": step.cpu_rlimit_s or 0,
            "address_space_bytes": step.address_space_bytes or 0, "max_output_bytes": limits.max_output_bytes,
            "max_file_bytes": limits.max_file_bytes, "max_open_files": limits.max_open_files}
