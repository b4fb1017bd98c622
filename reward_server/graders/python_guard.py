"""The Python guard (docs/guards.md): the program's source file is a trusted loader (sandboxes/guards/python.py),
and the program, its tests and the end-of-tests marker reach it on stdin, so that the source file holds none of them.

The loader also keeps the tests' builtins, imports and the prompt's own definitions as they were before the program
ran, refuses values the tests compare unless they are plain data, and keeps itself and the running tests out of the
program's reach; the reasons are in its docstring.
"""

from __future__ import annotations

from sandboxes import guards

LOADER = guards.source("python").read_text(encoding="utf-8")


def prepare(prompt: str, completion: str, tests: str, marker: str) -> tuple[str, str]:
    """(source, stdin) of one run: the loader, and what it loads (a header line, then the texts back to back:
    no JSON to import in the sandbox). `completion` is already cut at the stop tokens."""
    return LOADER, f"{marker} {len(prompt)} {len(completion)}\n{prompt}{completion}{tests}"
