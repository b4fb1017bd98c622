"""Sandbox backends: `process` (embedded default, host toolchains in bubblewrap) and `docker`."""
