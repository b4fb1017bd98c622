#!/usr/bin/env bash
# Installs what the docker backend's images, tests and benchmark need on Debian 12: the engine
# (docker.io: dockerd, containerd, runc), Debian's registry (real @sha256 digests on 127.0.0.1),
# debootstrap (the base rootfs) and the Docker SDK. Idempotent; SKIP_APT=1 skips the apt part.
set -euo pipefail
"$(dirname "$0")/../../apt_install.sh" docker.io docker-registry debootstrap
"${PYTHON:-python3}" -c "import docker" 2>/dev/null || "${PYTHON:-python3}" -m pip install -q "docker>=7"
