"""A guarded run (docs/guards.md): the program's source file is its language's trusted loader
(sandboxes/guards/<guard>.<ext>), and the program, its tests and the end-of-tests marker reach it on stdin, so that no
file of the run holds them. What each loader does before, between and after running them is in its own header.
"""

from __future__ import annotations

import functools

from sandboxes import guards


@functools.cache
def loader(guard: str) -> str:
    """The text of a guard's loader: the run's source file."""
    return guards.source(guard).read_text(encoding="utf-8")


def prepare(guard: str, prompt: str, completion: str, tests: str, marker: str) -> tuple[str, str]:
    """(source, stdin) of one run: the loader, and what it loads: a header line "marker, prompt length, completion
    length", the lengths in UTF-8 bytes (which every language's loader can slice), then the texts back to back (no
    JSON to parse in the sandbox). `completion` is already cut at the stop tokens."""
    return loader(guard), f"{marker} {len(prompt.encode())} {len(completion.encode())}\n{prompt}{completion}{tests}"


def exists(guard: str) -> bool:
    return len(list(guards.DIRECTORY.glob(f"{guard}.*"))) == 1
