#!/usr/bin/env bash
# Installs what is missing (sandbox toolchains, a Python environment) and serves on the embedded default
# backend, on 127.0.0.1:50051 unless told otherwise: ./serve.sh --host 0.0.0.0 --port 50051 --workers 8
set -euo pipefail
cd "$(dirname "$0")"
sandboxes/setup.sh
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install -q -e .
# What this host can enforce and the limits mode serve will take, with the fix for what is missing (serve itself
# refuses to start without what it needs, and says why).
.venv/bin/reward-server doctor || true
exec .venv/bin/reward-server serve "$@"
