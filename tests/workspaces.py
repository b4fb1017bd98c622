"""One program through a backend's workspace, as the backend tests (process and docker) pose it: compiled if its
language compiles, then run once if that went well."""

from __future__ import annotations

from sandboxes.backend import Backend
from sandboxes.languages import Language
from sandboxes.results import Limits, RunResult, RunStatus

Outcome = tuple[RunResult | None, RunResult | None]     # the compile (None: nothing to compile), the run (None: the
                                                        # compile failed)


async def compile_and_run(backend: Backend, language: Language, source: str, limits: Limits, stdin: bytes = b"", *,
                          slot: int = 0, deadline: float | None = None) -> Outcome:
    """The program's compile and run in a fresh workspace of `slot`."""
    async with backend.workspace(language, source, slot) as workspace:
        compiled = await workspace.compile(None)
        if compiled is not None and compiled.status is not RunStatus.OK:
            return compiled, None
        return compiled, await workspace.run(stdin, limits, deadline)


async def run(backend: Backend, language: Language, source: str, limits: Limits, stdin: bytes = b"", *,
              slot: int = 0, deadline: float | None = None) -> RunResult:
    """The run of a program whose language compiles nothing."""
    compiled, ran = await compile_and_run(backend, language, source, limits, stdin, slot=slot, deadline=deadline)
    assert compiled is None, compiled
    return ran


def assert_same(got: Outcome, expected: Outcome) -> None:
    """The same steps, ending the same way with the same output."""
    for step, want in zip(got, expected, strict=True):
        assert (step is None) == (want is None), (got, expected)
        if step is not None:
            assert (step.status, step.exit_code, step.stdout, step.stderr) == (
                want.status, want.exit_code, want.stdout, want.stderr)
