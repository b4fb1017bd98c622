"""Function-style tests in a process of their own, as every backend runs them (docs/guards.md, "Two processes").

The workspace holds two directories: TESTS_DIR, the tests' source (the prompt's helpers, the stub, the tests), and
PROGRAM_DIR, the program's (the prompt, the completion, the dispatcher). A compile builds each in its own directory
with the language's own command; a run is `pair` (pair.c, built by each backend at start and seen at PAIR in every
sandbox), which starts both, the program confined so that it reaches neither the tests' files nor their process.
"""

from __future__ import annotations

import ctypes
import dataclasses
import functools
import pathlib
from collections.abc import Mapping

from sandboxes.languages import Language, SplitUnit
from sandboxes.policy import Step
from sandboxes.results import RunResult, RunStatus

TESTS_DIR, PROGRAM_DIR = "t", "p"       # pair.c's own names
PAIR = "/run/pair"
SETUP_FAILED = 125      # pair's exit status when it could not start both: the sandbox's failure, never the program's
SOURCE = pathlib.Path(__file__).with_name("pair.c")
LANDLOCK_CREATE_RULESET, LANDLOCK_CREATE_RULESET_VERSION = 444, 1    # the same number on every architecture
SIGNALS_SCOPED_ABI = 6      # Linux 6.12: Landlock keeps a domain's processes from signalling those outside it
# A compile is the language's command (its argv after these) in each directory, the tests' first, then the program's,
# confined as its runs are (a compile may read what its source names: never the tests' files)
TESTS_SIDE = ("sh", "-c", f'cd {TESTS_DIR} && exec "$@"', "sh")
PROGRAM_SIDE = (PAIR, "--confine", "--")
# a split's unit (SplitUnit: its dispatcher, its codec) is compiled in the program's directory as the tests' side is in
# theirs: its source is the prompt's includes and ours, nothing of the program
UNIT_SIDE = ("sh", "-c", f'cd {PROGRAM_DIR} && exec "$@"', "sh")


def side_files(name: str, program: str, tests: str, beside: Mapping[str, str]) -> dict[str, str]:
    """The workspace's files of a split candidate whose source file is `name`, with the files `beside` (its codec
    module) next to each side's."""
    return {f"{PROGRAM_DIR}/{name}": program, f"{TESTS_DIR}/{name}": tests,
            **{f"{side}/{file}": text for file, text in beside.items() for side in (PROGRAM_DIR, TESTS_DIR)}}


def tests_side(step: Step) -> Step:
    """The compile step of one side, made the compile of the tests' side alone."""
    return dataclasses.replace(step, argv=(*TESTS_SIDE, *step.argv))


def program_side(step: Step, unit: SplitUnit | None) -> Step:
    """The compile step of one side, made the compile of the program's side alone (linked with `unit`'s objects, if
    it has one), confined (no compiler of a split language exits 125 of its own: that status is pair's, which could not
    confine it)."""
    link = unit.link if unit is not None else ()
    return dataclasses.replace(step, argv=(*PROGRAM_SIDE, *step.argv, *link), setup_failed_exit=SETUP_FAILED)


def unit_of(language: Language, files: Mapping[str, str] | None) -> SplitUnit | None:
    """The split's unit, where a split candidate's `files` hold its source (split_tests decides)."""
    unit = language.split.unit if language.split is not None else None
    return unit if unit is not None and unit.source_file in (files or {}) else None


def unit_compile(unit: SplitUnit, step: Step) -> Step:
    """The compile step of one side, made the unit's compile (its toolchain's tree not yet applied)."""
    return dataclasses.replace(step, argv=tuple(part.format(source=unit.source_file) for part in unit.compile))


def unit_side(step: Step) -> Step:
    """The unit's compile step, made the compile in the program's directory."""
    return dataclasses.replace(step, argv=(*UNIT_SIDE, *step.argv))


def unit_kept(unit: SplitUnit | None) -> tuple[str, ...]:
    """What a problem's build leaves in the workspace (glob patterns): the tests' side, and the unit's objects beside
    the program."""
    return (TESTS_DIR, *(f"{PROGRAM_DIR}/{name}" for name in (unit.objects if unit is not None else ())))


def tests_unbuilt(result: RunResult) -> str | None:
    """Why the tests' side did not compile, for SplitTestsDoNotCompile (never the program's fault: nothing of it is
    there); None where the compile ended well, or as the caller or the sandbox ended it (their own verdicts)."""
    if result.status in (RunStatus.OK, RunStatus.DEADLINE, RunStatus.SANDBOX_ERROR):
        return None
    return (f"the tests' side or the dispatcher's unit does not compile ({result.status.value} {result.detail}): "
            + result.stderr.decode(errors="replace")[-500:].strip())


def paired(step: Step, may_fork: bool) -> Step:
    """The run step of one side, made the run of the tests against the program."""
    return dataclasses.replace(step, argv=(PAIR, *(("--may-fork",) if may_fork else ()), "--", *step.argv, "--",
                                           *step.argv), setup_failed_exit=SETUP_FAILED)


def unpaired(step: Step) -> tuple[Step, bool] | None:
    """A paired run's side (both sides run the same command) and whether it may fork; None for a step not paired.
    A backend that starts both sides itself (the process backend's zygote) runs this instead of pair."""
    if step.argv[0] != PAIR:
        return None
    may_fork = step.argv[1] == "--may-fork"
    sides = step.argv[2 + may_fork:]
    return dataclasses.replace(step, argv=sides[:len(sides) // 2]), may_fork


@functools.cache
def landlock_abi() -> int:
    """This kernel's Landlock ABI version; 0 where it has none (before Linux 5.13, or not among the LSMs it runs)."""
    syscall = ctypes.CDLL(None, use_errno=True).syscall
    syscall.restype = ctypes.c_long
    return max(0, syscall(LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), LANDLOCK_CREATE_RULESET_VERSION))


def confinement_gaps(abi: int) -> tuple[str, ...]:
    """What pair cannot enforce on a kernel of Landlock ABI `abi`, as clients are told (ListLanguages' weaker
    limits, `doctor`; docs/guards.md, "Two processes")."""
    if abi < 1:
        return ("no Landlock: every run of tests in a process of their own is INFRA_SANDBOX_ERROR",)
    if abi < SIGNALS_SCOPED_ABI:
        return (f"Landlock ABI {abi} (signals are scoped from ABI {SIGNALS_SCOPED_ABI}, Linux 6.12): a program can "
                "signal its tests' process, which fails or times out its run, never passes it",)
    return ()
