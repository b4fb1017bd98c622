"""What a language's guard runs inside the sandbox (docs/guards.md): standard library only, never imported by the
server. `<guard>.<its language's extension>` (python.py, javascript.js) is the program's source file of each guarded
run; where the language has a zygote (Python), the process backend's zygote also imports it, as ZYGOTE_MODULE, before
any run, so that what the guard snapshots of the interpreter is taken there once instead of in every forked run."""

import pathlib

DIRECTORY = pathlib.Path(__file__).parent


def source(guard: str) -> pathlib.Path:
    """The guard's one file, whatever its language's extension."""
    (found,) = DIRECTORY.glob(f"{guard}.*")
    return found


def zygote_module(guard: str) -> str:
    """The name a zygote imports the guard under (the guard looks for itself by this name)."""
    return f"_guard_{guard}"
