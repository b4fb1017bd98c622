#!/usr/bin/env bash
# Installs the host toolchains and isolation tools the process backend needs (Debian 12).
# Idempotent: packages already present are skipped by apt. Set SKIP_APT=1 to skip entirely.
set -euo pipefail
[ "${SKIP_APT:-0}" = 1 ] && exit 0
packages=(
  bubblewrap procps util-linux python3 python3-venv
  g++ gfortran gdc default-jdk-headless nodejs node-typescript golang-go rustc
  ruby php-cli perl lua5.4 r-base-core mono-mcs mono-runtime scala kotlin ocaml-nox racket
)
command -v npm >/dev/null || packages+=(npm)
"$(dirname "$0")/apt_install.sh" "${packages[@]}"
# Node's type definitions for tsc (languages.toml: typescript --typeRoots), so stdin programs that use
# require/process type-check; the version matches Debian's TypeScript 4.8.
types_dir=/usr/local/lib/reward-sandbox/typescript
if [ ! -f "$types_dir/node_modules/@types/node/package.json" ]; then
  sudo_cmd=""
  [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  $sudo_cmd npm install --no-save --no-audit --no-fund --prefix "$types_dir" @types/node@18.11.18
fi
