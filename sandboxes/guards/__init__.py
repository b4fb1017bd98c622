"""What a language's guard runs inside the sandbox (docs/guards.md): standard library only, never imported by the
server. `<guard>.py` is the program's source file of each guarded run; the process backend's zygote also imports it,
as ZYGOTE_MODULE, before any run, so that what the guard snapshots of the interpreter is taken there once instead of
in every forked run."""

import pathlib

DIRECTORY = pathlib.Path(__file__).parent


def source(guard: str) -> pathlib.Path:
    return DIRECTORY / f"{guard}.py"


def zygote_module(guard: str) -> str:
    """The name a zygote imports the guard under (the guard looks for itself by this name)."""
    return f"_guard_{guard}"
