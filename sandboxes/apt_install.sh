#!/usr/bin/env bash
# apt_install.sh PACKAGE...: installs the Debian packages among those that are not installed yet.
# Shared by the setup scripts; SKIP_APT=1 skips it (a machine prepared by other means).
set -euo pipefail
[ "${SKIP_APT:-0}" = 1 ] && exit 0
missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo_cmd=""
[ "$(id -u)" = 0 ] || sudo_cmd="sudo"
$sudo_cmd apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
