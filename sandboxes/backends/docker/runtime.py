"""What a sandbox container looks like from the inside: its user, its paths, its copy of a language, and
the job by which the runner is asked to execute one step.

Shared by the image builder (which bakes the language table's entry and the modules below into the image,
so the runner can serve the Agnostics protocol on its own with the very same argv rendering and policy),
the docker backend (which renders every step on the host and sends it as a job) and the runner.
"""

from __future__ import annotations

import base64
import dataclasses

from sandboxes.languages import Language
from sandboxes.policy import Step

WORKDIR = "/sandbox"
SANDBOX_USER = "65534:65534"
RUNNER_DIR = "/opt/sandbox"
# The project's modules the runner imports inside the image (standard library only), as package paths.
# (tests/sandboxes/test_baked_runner.py starts the runner from exactly these, so a missing one fails there.)
BAKED_MODULES = ("sandboxes/__init__.py", "sandboxes/languages.py", "sandboxes/results.py", "sandboxes/policy.py",
                 "sandboxes/backend.py", "sandboxes/backends/__init__.py", "sandboxes/backends/kind.py",
                 "sandboxes/backends/process/__init__.py", "sandboxes/backends/docker/__init__.py",
                 "sandboxes/backends/docker/runtime.py")


def runner_spec(language: Language) -> dict:
    """The language table entry as JSON, for Language(**spec) inside the image."""
    return {name: list(value) if isinstance(value, tuple) else value
            for name, value in dataclasses.asdict(language).items()}


def runner_job(step: Step, stdin: bytes) -> dict:
    """The runner's `exec` job for one step (0 = no CPU budget, CPU-time rlimit or address-space limit)."""
    limits = step.limits
    return {"argv": list(step.argv), "env": dict(step.env), "stdin_b64": base64.b64encode(stdin).decode(),
            "wall_s": step.wall_s, "cpu_budget_s": step.cpu_budget_s or 0, "cpu_rlimit_s": step.cpu_rlimit_s or 0,
            "address_space_bytes": step.address_space_bytes or 0, "max_output_bytes": limits.max_output_bytes,
            "max_file_bytes": limits.max_file_bytes, "max_open_files": limits.max_open_files}
