"""Known programs per language (its folder's samples.toml), one set for the tests and `eval --self-check` alike.

Every file has three sections, and each program in them has a known outcome:
- [function], MultiPL-E layout (program = prompt + completion + "\\n" + tests): `completion` finishes add(a, b)
  so that the tests pass (exit 0); `wrong` subtracts instead, so they fail at run time.
- [stdin], read two integers and print their sum (SUM_TESTS): `good` passes; `wrong` prints the difference;
  `crash` prints the sum, then exits with status 3; `loop` never ends; `broken` does not parse, which is a
  `broken_verdict` (COMPILE_ERROR where the language compiles, RUNTIME_ERROR where the interpreter finds it).
- [greeter], `program` reads a line and prints "hello <line>"; given "boom" it fails at run time and prints
  nothing. One program for a passing and a failing run, so a compiled language compiles once.

Every language's folder has one. Standard library only: an image carries this module and its language's file.
"""

from __future__ import annotations

import dataclasses
import functools
import pathlib
import tomllib
from typing import TypeVar

SAMPLES_DIR = pathlib.Path(__file__).parent   # sandboxes/languages: <key>/SAMPLES_FILE
SAMPLES_FILE = "samples.toml"

SUM_TESTS: tuple[tuple[str, str], ...] = (("1 2\n", "3\n"), ("-5 20\n", "15\n"))
"""(stdin, expected stdout) of every stdin sample: `good` passes them all."""
SUM_TESTS_LAST_WRONG: tuple[tuple[str, str], ...] = (SUM_TESTS[0], ("1 1\n", "3\n"))
"""A right expectation, then a wrong one: `good` gets PASS, then WRONG_ANSWER, test by test."""


class SamplesError(ValueError):
    """A samples file lacks a section or program, or holds one nobody reads."""


@dataclasses.dataclass(frozen=True)
class FunctionSample:
    prompt: str
    completion: str
    wrong: str
    tests: str


@dataclasses.dataclass(frozen=True)
class StdinSample:
    broken_verdict: str
    good: str
    wrong: str
    crash: str
    loop: str
    broken: str


@dataclasses.dataclass(frozen=True)
class GreeterSample:
    program: str


@dataclasses.dataclass(frozen=True)
class Samples:
    key: str
    function: FunctionSample
    stdin: StdinSample
    greeter: GreeterSample


Section = TypeVar("Section", FunctionSample, StdinSample, GreeterSample)
_SECTIONS = {"function": FunctionSample, "stdin": StdinSample, "greeter": GreeterSample}


@functools.cache
def load_samples(directory: pathlib.Path = SAMPLES_DIR) -> dict[str, Samples]:
    """Every language's samples, by its folder's name (the language's key)."""
    return {path.parent.name: _read(path) for path in sorted(directory.glob(f"*/{SAMPLES_FILE}"))}


def _read(path: pathlib.Path) -> Samples:
    with open(path, "rb") as f:
        raw = tomllib.load(f)
    if set(raw) != set(_SECTIONS):
        raise SamplesError(f"{path}: sections {sorted(raw)}, need {sorted(_SECTIONS)}")
    return Samples(path.parent.name, **{name: _section(path, name, raw[name], cls) for name, cls in _SECTIONS.items()})


def _section(path: pathlib.Path, name: str, raw: dict, cls: type[Section]) -> Section:
    fields = {field.name for field in dataclasses.fields(cls)}
    if set(raw) != fields or not all(isinstance(value, str) and value for value in raw.values()):
        raise SamplesError(f"{path} [{name}]: need the non-empty texts {sorted(fields)}, have {sorted(raw)}")
    return cls(**raw)
