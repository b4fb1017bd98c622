"""The JavaScript guard (docs/guards.md): the run's source file is a trusted loader (sandboxes/guards/javascript.js),
and the program, its tests and the end-of-tests marker reach it on stdin, so that no file of the run holds them.

The loader also hands the tests the assert module as it was before the program ran, keeps their `require` and their
frames out of the program's reach, and writes the marker with a write it took beforehand; the reasons are in its
header.
"""

from __future__ import annotations

from sandboxes import guards

LOADER = guards.source("javascript").read_text(encoding="utf-8")


def prepare(prompt: str, completion: str, tests: str, marker: str) -> tuple[str, str]:
    """(source, stdin) of one run: the loader, and what it loads (a header line, then the texts back to back).
    `completion` is already cut at the stop tokens."""
    return LOADER, f"{marker} {len(prompt)} {len(completion)}\n{prompt}{completion}{tests}"
