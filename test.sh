#!/usr/bin/env bash
# Installs what is missing (sandbox toolchains, the Docker engine and registry for the container backend,
# a Python environment with every extra, kubectl for the manifests, qemu and a kernel for the cgroup v2 suite) and
# runs the whole test suite, where a skip tests/skips.py does not allow fails the run. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")"
sandboxes/setup.sh
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install -q -e '.[dev,train,docker]'
PYTHON=.venv/bin/python tests/setup_kubectl.sh   # kubectl kustomize for tests/test_deploy_manifests.py
PYTHON=.venv/bin/python sandboxes/backends/docker/setup_docker.sh
tests/vm/setup_vm.sh            # qemu and Debian's kernel: the cgroup v2 suite boots it (tests/vm)
.venv/bin/ruff check .
exec .venv/bin/python -m pytest --strict-skips --durations=25 "$@"
