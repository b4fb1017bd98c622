"""Sandbox backends, one folder each, and the registry from a backend's name to its kind (options, factory).

A new backend is a folder here whose package declares a `KIND`, plus one line in BACKENDS; it gets its
steps (argv, environment, limits) from sandboxes.policy and reports how each ended, deciding no rule itself.
"""

from __future__ import annotations

from sandboxes.backends.docker import KIND as DOCKER
from sandboxes.backends.kind import BackendKind
from sandboxes.backends.process import KIND as PROCESS

BACKENDS: dict[str, BackendKind] = {kind.name: kind for kind in (PROCESS, DOCKER)}
DEFAULT_BACKEND = PROCESS.name
