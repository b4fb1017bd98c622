"""The `docker` backend: digest-pinned per-language images, served by warm pools of long-lived containers."""

from __future__ import annotations

from sandboxes.backends.kind import BackendKind, Option

WARM = 1              # idle containers per pinned language
RECYCLE_AFTER = 100   # jobs a container serves before it is replaced

KIND = BackendKind(
    "docker", "digest-pinned images (sandboxes/backends/docker/images.lock or $REWARD_SANDBOX_LOCK) on $DOCKER_HOST",
    "sandboxes.backends.docker.backend:DockerBackend", (
        Option("warm", int, WARM, "idle containers kept per pinned language (0 = start one per candidate)"),
        Option("recycle_after", int, RECYCLE_AFTER, "jobs a container serves before it is replaced"),
    ))
