"""The embedded `process` backend: host toolchains, each compile and run in fresh bubblewrap namespaces."""

from __future__ import annotations

from sandboxes.backends.kind import BackendKind

KIND = BackendKind("process", "embedded bubblewrap sandboxes over the host's toolchains (sandboxes/setup.sh)",
                   "sandboxes.backends.process.backend:ProcessBackend")
