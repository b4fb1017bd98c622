"""A guarded run (docs/guards.md): the program's source file is its language's trusted loader
(sandboxes/guards/<guard>.<ext>), and the program, its tests and the end-of-tests marker reach it on stdin, so that no
file of the run holds them. What each loader does before, between and after running them is in its own header.
A compiled language whose guard is another language's loader (TypeScript: javascript's) compiles the loader, the
program and the tests together (the tests type-checked against the program), the latter two each to a file of its
own, which the loader reads and removes before the program runs: stdin names them.
"""

from __future__ import annotations

import functools
import json
import re

from sandboxes import guards

PROGRAM, TESTS = "program", "tests"     # the stems of a compiled guard's units


@functools.cache
def loader(guard: str) -> str:
    """The text of a guard's loader: the run's source file."""
    return guards.source(guard).read_text(encoding="utf-8")


def prepare(guard: str, prompt: str, completion: str, tests: str, marker: str) -> tuple[str, str]:
    """(source, stdin) of one run: the loader, and what it loads: a header line "marker, prompt length, completion
    length", the lengths in UTF-8 bytes (which every language's loader can slice), then the texts back to back (no
    JSON to parse in the sandbox). `completion` is already cut at the stop tokens."""
    return loader(guard), f"{marker} {len(prompt.encode())} {len(completion.encode())}\n{prompt}{completion}{tests}"


def prepare_compiled(guard: str, template: str, extension: str, prompt: str, completion: str, tests: str,
                     marker: str) -> tuple[str, str, dict[str, str]]:
    """(source, stdin, files) of one run of a compiled language (`extension`: its source's) guarded by `guard`'s
    loader: the source is `template` around the loader ({loader}: its text as a JSON string, which the template's
    language reads as a string literal), which names the program's and the tests' files ({program}, {tests}) for the
    compile; stdin the marker and the names of what the compile makes of them in the loader's language."""
    built = guards.source(guard).suffix
    names = {"loader": json.dumps(loader(guard)), "program": PROGRAM + extension, "tests": TESTS + extension}
    source = re.sub(r"\{(loader|program|tests)\}", lambda found: names[found[1]], template)
    files = {names["program"]: prompt + completion, names["tests"]: tests}
    return source, f"{marker} {PROGRAM}{built} {TESTS}{built}\n", files


def exists(guard: str) -> bool:
    return len(list(guards.DIRECTORY.glob(f"{guard}.*"))) == 1
