#!/usr/bin/env bash
# Installs what the docker backend's images, tests and benchmark need on Debian 12: the engine
# (docker.io: dockerd, containerd, runc), Debian's registry (real @sha256 digests on 127.0.0.1),
# debootstrap (the base rootfs) and the Docker SDK. Idempotent; SKIP_APT=1 skips the apt part.
set -euo pipefail
if [ "${SKIP_APT:-0}" != 1 ]; then
  missing=()
  for p in docker.io docker-registry debootstrap; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    sudo_cmd=""
    [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
fi
"${PYTHON:-python3}" -c "import docker" 2>/dev/null || "${PYTHON:-python3}" -m pip install -q "docker>=7"
