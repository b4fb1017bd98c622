#!/usr/bin/env bash
# Installs the host toolchains and isolation tools the process backend needs (Debian 12).
# Idempotent: packages already present are skipped by apt. Set SKIP_APT=1 to skip entirely.
set -euo pipefail
[ "${SKIP_APT:-0}" = 1 ] && exit 0
here="$(dirname "$0")"
# The backend's own tools first: python3 also reads the language table (sandboxes/languages) below.
"$here/apt_install.sh" bubblewrap procps util-linux python3 python3-venv
# Every language's packages from the table, by name: a version there pins the docker images, while a host
# takes the archive's current build (pins go stale as Debian updates; a host may carry a newer runtime).
# A language Debian lacks (its `release` tarball) exists in its image only: its packages are that tarball's
# dependencies, of no use here.
names="$(PYTHONPATH="$here/.." /usr/bin/python3 - <<'PY'
from sandboxes.languages import LanguageTable

hosted = [language for language in LanguageTable.load() if language.release is None]
print(" ".join(dict.fromkeys(p.split("=", 1)[0] for language in hosted for p in language.packages)))
PY
)"
read -ra packages <<<"$names"
"$here/apt_install.sh" "${packages[@]}"
sudo_cmd=""
[ "$(id -u)" = 0 ] || sudo_cmd="sudo"
# Each language's `setup` step, on every run (it refreshes what the packages' current build left).
PYTHONPATH="$here/.." /usr/bin/python3 - <<'PY' | while IFS= read -r -d '' step; do $sudo_cmd sh -c "$step"; done
from sandboxes.languages import LanguageTable

for language in LanguageTable.load():
    if language.setup and language.release is None:
        print(language.setup, end="\0")
PY
# Node's type definitions for tsc (the typescript folder's compile: --typeRoots /usr/share/nodejs/@types), so stdin
# programs that use require/process type-check. Debian's nodejs ships them there; on a host whose node is not
# Debian's (nodesource's has none) npm's @types/node of Debian's major version goes there instead.
types_dir=/usr/share/nodejs/@types/node
if [ ! -f "$types_dir/package.json" ]; then
  command -v npm >/dev/null || "$here/apt_install.sh" npm
  fetched="$(mktemp -d)"
  npm install --no-save --no-audit --no-fund --prefix "$fetched" @types/node@18.11.18
  $sudo_cmd mkdir -p "$(dirname "$types_dir")"
  $sudo_cmd cp -r "$fetched/node_modules/@types/node" "$types_dir"
  rm -rf "$fetched"
fi
