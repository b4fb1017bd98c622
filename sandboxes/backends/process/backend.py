"""The embedded `process` backend: host toolchains, each run in fresh bubblewrap namespaces.

Why it looks the way it does (measured on the target machines):
- Each pool slot has its limits (limits.py: cgroup v2 or v1 groups of its own, or rlimits alone where no cgroup can be
  written; `serve --limits`) and, as root, a uid of its own (slots.py). Memory is limited by the cgroup: RLIMIT_AS
  breaks the JVM, node, Go, rustc and mono, so it is only added where the table says so. The slots' cpu groups weigh
  the same, so a slot that starts many busy processes slows its neighbours no more than one that starts a single one;
  together they weigh what as many processes would.
- A run's time limit is its CPU time (every process of the run), checked while it runs only when the budget could
  first be spent; the wall clock is only a backstop (policy.py).
- A run's peak memory is the slot's memory high-water mark less what the group held as it started (its residents,
  page cache earlier steps left): what the run itself charged against its memory limit, sandbox included.
- A run is one exec with no Python in the child: a tiny static launcher (launcher.c, built at start) joins the slot's
  cgroups, sets the rlimits, drops to the slot uid with no new privileges and runs `bwrap` (command.py): new
  user/pid/net/ipc/uts/cgroup namespaces, everything read-only but the workspace, its /tmp and /dev/shm. The launcher
  costs ~3 ms of CPU less per run than `sh` + `setpriv` doing the same, and as a subreaper it reaps the sandbox's
  init at once (no zombie outlives the run to eat the slot's pids budget). That init is the launcher again
  (`--reap`, pid 1 of the sandbox): it reaps the program's tree and reports how the program itself ended, so a
  sandbox killed from outside is never read as the program's death (sandboxes/sandbox_deaths.py). The server spawns
  the launcher with posix_spawn, reaps it through a pidfd and pumps its pipes itself (child.py, streams.py):
  asyncio's subprocess machinery cost more CPU than a run. supervision.py takes a step from start to verdict.
- Except the runs of a language whose table entry has `warm_imports` (Python): they fork from a warm interpreter
  that lives in the slot's sandbox (zygotes.py, zygote.py, zygote_main.py), with the same limits, namespaces and
  verdicts (`fork_from_zygotes`, the `serve --zygote` flag, turns it off). A slot's zygotes are its residents: their
  processes and memory are added to every limit of the slot.
- A compile sees, read-only, its language's tree of toolchain artifacts: precompiled headers, its JVM compiler's class
  archive or its compiler's snapshot, and a JVM run its runtime's class archive, built on first use
  (artifact_builds.py).
- A split's tests' side (the tests in a process of their own) is compiled once per problem and copied into each
  later workspace of the problem, which compiles only its program (tests_builds.py).
- A run that goes again after its sandbox may have died (sandbox_deaths.py) goes from a fresh workspace: its files
  laid out and compiled again, nothing of the first try left.
- When the program exits, its pid namespace dies with it: nothing it left running survives the run.
  The CPU limit's soft signal (SIGXCPU) marks a CPU-time death; a SIGKILL is the OOM killer's only if
  the memory cgroup's counter moved.
- bwrap reports on a status pipe whether the sandbox started, and its init on another how the program exited: no
  report means the sandbox failed, which is never blamed on the program (a program cannot forge it on stderr).
- Sandboxes die with the server (PDEATHSIG); what a killed server leaves behind (mounts, cgroups) is removed by the
  next one to start (instances.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import logging
import os
import pathlib
import shutil
from collections.abc import AsyncIterator, Mapping, Sequence

from sandboxes import split
from sandboxes.backend import (
    LimitsInfo,
    SandboxError,
    SandboxInfo,
    SplitTestsDoNotCompile,
    build_shared,
    build_static,
    compiled_away,
    workspace_files,
)
from sandboxes.backends.process.artifact_builds import ArtifactBuilds
from sandboxes.backends.process.command import Commands, which
from sandboxes.backends.process.host import choose
from sandboxes.backends.process.instances import InstanceDir, reap_dead_instances
from sandboxes.backends.process.limits import LimitsError, Mechanism
from sandboxes.backends.process.probe import probe
from sandboxes.backends.process.slots import (
    BASE_UID,
    ProcessSlotState,
    Slot,
    close_slot,
    make_slot,
    remove_workspace,
    renew_workspaces,
)
from sandboxes.backends.process.supervision import Supervisor, sandbox_error
from sandboxes.backends.process.tests_builds import TestsBuilds, build_key
from sandboxes.backends.process.zygotes import Zygotes, zygote_prefix
from sandboxes.languages import Language
from sandboxes.policy import BASE_ENV, FIXED_PATH, Step, compile_step, run_step
from sandboxes.results import Limits, RunResult, RunStatus
from sandboxes.sandbox_deaths import SandboxDeaths, at_most_twice
from sandboxes.trees import remove_tree

log = logging.getLogger(__name__)

LAUNCHER_SOURCE = pathlib.Path(__file__).with_name("launcher.c")
RUN_INIT_SOURCE = pathlib.Path(__file__).with_name("run_init.c")
ZYGOTE_SOURCE = pathlib.Path(__file__).with_name("zygote_main.py")
ARTIFACTS_DIR = "toolchain-artifacts"     # in the instance's directory: the languages' trees (artifact_builds.py)
TESTS_BUILDS_DIR = "tests-builds"          # in the instance's directory: the split tests' builds (tests_builds.py)


class ProcessBackend:
    """Runs programs with the host's toolchains, one bubblewrap sandbox per compile or run."""

    name = "process"

    def __init__(self, base_uid: int = BASE_UID, fork_from_zygotes: bool = True, limits: str = "auto") -> None:
        self.base_uid = base_uid
        self.fork_from_zygotes = fork_from_zygotes
        self.limits_choice = limits
        self.mechanism: Mechanism | None = None
        self.supervisor: Supervisor | None = None
        self.zygotes: Zygotes | None = None
        self.artifact_builds: ArtifactBuilds | None = None
        self.tests_builds: TestsBuilds | None = None
        self._infos: dict[str, SandboxInfo] = {}
        self._slots: list[Slot] = []
        self._instance: InstanceDir | None = None
        self._root: pathlib.Path | None = None
        self._counter = itertools.count()
        self.deaths = SandboxDeaths()

    def describe(self, language: Language) -> SandboxInfo:
        info = self._infos.get(language.key)
        if info is None:
            info = self._infos[language.key] = probe(language)
        return info

    def limits(self) -> LimitsInfo:
        if self.mechanism is None:
            raise SandboxError("the process backend is not started")
        return LimitsInfo(self.mechanism.name, self.mechanism.weaker + split.confinement_gaps(split.landlock_abi()))

    def slots(self) -> list[ProcessSlotState]:
        return [slot.state() for slot in self._slots]

    # --- lifecycle --------------------------------------------------------------------------------

    async def start(self, slots: int) -> None:
        tools = {}
        for tool in ("gcc", "bwrap"):
            path = which(tool)
            if path is None:
                raise SandboxError(f"{tool} not found on {FIXED_PATH} (run sandboxes/setup.sh)")
            tools[tool] = path
        if os.geteuid() != 0:
            log.warning("not root: every slot runs as uid %d, the server's own (root gives each slot a uid of its "
                        "own, and its workspaces a tmpfs; docs/guards.md)", os.getuid())
        reap_dead_instances()
        self._instance = InstanceDir()
        self._root = self._instance.path
        try:
            self.mechanism = choose(self.limits_choice, self._root.name)
            launcher, run_init, pair, pair_library = await asyncio.gather(
                build_static(tools["gcc"], LAUNCHER_SOURCE, self._root / "launcher", 0o755),   # also the reaper
                build_static(tools["gcc"], RUN_INIT_SOURCE, self._root / "run-init", 0o755, "-nostdlib",
                             "-fno-stack-protector"),
                build_static(tools["gcc"], split.SOURCE, self._root / "pair", 0o755),
                build_shared(tools["gcc"], split.SOURCE, self._root / "libpair.so"))
            shutil.copyfile(ZYGOTE_SOURCE, self._root / "zygote.py")
            (self._root / "zygote.py").chmod(0o644)
            (self._root / ARTIFACTS_DIR).mkdir(mode=0o755)
            self.artifact_builds = ArtifactBuilds(self._root / ARTIFACTS_DIR)
            (self._root / TESTS_BUILDS_DIR).mkdir(mode=0o700)
            self.tests_builds = TestsBuilds(self._root / TESTS_BUILDS_DIR)
            commands = Commands(launcher, tools["bwrap"], pair)
            self.supervisor = Supervisor(commands, self.mechanism)
            self.zygotes = Zygotes(self.supervisor, commands, self._root / "zygote.py", run_init, pair_library)
            for index in range(slots):
                self._slots.append(await make_slot(index, self._root, self.mechanism, self.base_uid,
                                                   {slot.uid for slot in self._slots}))
            self.mechanism.finish_start(slots)
            await self._smoke_test()
        except (LimitsError, OSError) as e:
            await self.close()
            raise SandboxError(f"process backend cannot start: {e}") from e
        except SandboxError:
            await self.close()
            raise

    async def _smoke_test(self) -> None:
        """One trivial sandboxed run, so a host that cannot sandbox fails at start, not on every program."""
        slot = self._slots[0]
        path = slot.new_workspace_dir(f"w{next(self._counter)}")
        try:
            step = Step(("/bin/true",), BASE_ENV, Limits(timeout_s=30, memory_mb=256), wall_s=30, cpu_budget_s=None,
                        cpu_rlimit_s=None, address_space_bytes=None)
            result = await self.supervisor.execute(slot, path, step, b"", deadline=None)
        finally:
            await remove_workspace(slot, path)
        if result.status is not RunStatus.OK:
            raise SandboxError(f"sandbox smoke test failed ({result.status.value}): {result.detail} "
                               f"{result.stderr.decode(errors='replace')[-500:]}")

    async def close(self) -> None:
        for slot in self._slots:
            await close_slot(slot)
        self._slots = []
        if self.mechanism is not None:
            self.mechanism.close()
            self.mechanism = None
        if self._instance is not None:
            await asyncio.to_thread(self._instance.release)
            self._instance = None
            self._root = None

    # --- workspaces -------------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def workspace(self, language: Language, source: str, slot: int, files: Mapping[str, str] | None = None,
                        data_files: Mapping[str, str] | None = None,
                        tests: str | None = None) -> AsyncIterator[ProcessWorkspace]:
        if not 0 <= slot < len(self._slots):
            raise SandboxError(f"slot {slot} does not exist (started with {len(self._slots)} slots)")
        state = self._slots[slot]
        if state.busy:
            raise SandboxError(f"slot {slot} already holds a workspace")
        state.busy = True
        try:
            if state.dirty:
                await renew_workspaces(state)
            path = state.new_workspace_dir(f"w{next(self._counter)}")
        except BaseException:
            state.busy = False
            raise
        try:
            laid_out = workspace_files(language, source, files, data_files, tests)
            lay_out(state, path, laid_out)
            yield ProcessWorkspace(self, language, source, state, path, compiled_away(language, source, files, tests),
                                   tests, files or {}, laid_out)
        finally:
            try:
                await state.sweep()
            finally:
                try:
                    await remove_workspace(state, path)
                finally:  # a cancellation during the removal must not leave the slot refusing every later candidate
                    state.busy = False

    async def _run(self, slot: Slot, path: pathlib.Path, language: Language, step: Step, stdin: bytes,
                   deadline: float | None, artifact_tree: pathlib.Path | None) -> RunResult:
        """A run: forked by the slot's zygote for the language when it has one, else spawned (seeing
        `artifact_tree`)."""
        side = split.unpaired(step)      # a split's: the zygote forks both sides, as pair would start them
        prefix = zygote_prefix(language, side[0] if side else step) if self.fork_from_zygotes else None
        if prefix is None:
            return await self.supervisor.execute(slot, path, step, stdin, deadline=deadline,
                                                 artifact_tree=artifact_tree)
        return await self.zygotes.run(slot, path, language, step, stdin, deadline, prefix)


def lay_out(slot: Slot, path: pathlib.Path, files: Mapping[str, str]) -> None:
    """Write a workspace's files into its box, each the slot's own."""
    for name, text in files.items():
        file_path = path / "box" / name
        if not file_path.parent.is_dir():    # a split's side
            file_path.parent.mkdir(mode=0o755)
            slot.own(file_path.parent)
        file_path.write_text(text, encoding="utf-8", errors="surrogateescape")
        slot.own(file_path)


class ProcessWorkspace:
    """One candidate program in one slot: compiled once, then run once per test."""

    def __init__(self, backend: ProcessBackend, language: Language, source: str, slot: Slot,
                 path: pathlib.Path, compiled_away: list[str], tests: str | None, files: Mapping[str, str],
                 laid_out: Mapping[str, str]) -> None:
        self.backend = backend
        self.language = language
        self.source = source
        self.slot = slot
        self.path = path
        self.compiled_away = compiled_away
        self.tests = tests          # a split's tests' source: the tests run in a process of their own
        self.unit = split.unit_of(language, files) if tests is not None else None
        self.unit_source = files[self.unit.source_file] if self.unit is not None else ""
        self.laid_out = laid_out    # its files as it started with them, laid out again for a run that goes again

    async def compile(self, deadline: float | None) -> RunResult | None:
        step = compile_step(self.language, self.source)
        if step is None:
            return None
        step, artifact_tree = await self.backend.artifact_builds.prepare(self.language, self.source, step)
        try:
            if self.tests is None:
                return await self._compile(step, artifact_tree, deadline)
            return await self._compile_split(step, artifact_tree, deadline)
        finally:
            for name in self.compiled_away:
                (self.path / "box" / name).unlink(missing_ok=True)

    async def _compile_split(self, step: Step, artifact_tree: pathlib.Path | None,
                             deadline: float | None) -> RunResult:
        """The tests' side (and the dispatcher's unit) as the problem's kept build has it (built now if it is the
        first), then the program's. That build failing is never the program's fault: its sources hold nothing of the
        program."""
        assert self.tests is not None

        async def build() -> RunResult:
            built = await self._compile(split.tests_side(step), artifact_tree, deadline)
            if built.status is RunStatus.OK and self.unit is not None:
                unit_step, unit_tree = await self.backend.artifact_builds.prepare(
                    self.language, self.unit_source, split.unit_compile(self.unit, step))
                built = await self._compile(split.unit_side(unit_step), unit_tree, deadline)
            return built

        failed = await self.backend.tests_builds.lay_out(
            build_key(self.language.key, step, self.tests, self.unit_source), self.path / "box",
            split.unit_kept(self.unit), build, self.slot.own)
        if failed is None:
            return await self._compile(split.program_side(step, self.unit), artifact_tree, deadline)
        why = split.tests_unbuilt(failed)
        if why is None:
            return failed
        raise SplitTestsDoNotCompile(why)

    async def _compile(self, step: Step, artifact_tree: pathlib.Path | None, deadline: float | None) -> RunResult:
        return await at_most_twice(lambda: self.backend.supervisor.execute(
            self.slot, self.path, step, b"", deadline=deadline, artifact_tree=artifact_tree), self.backend.deaths,
            f"slot {self.slot.index}: a {self.language.key} compile")

    async def run(self, stdin: bytes, limits: Limits, deadline: float | None, args: Sequence[str] = ()) -> RunResult:
        step = run_step(self.language, self.source, limits)
        step, artifact_tree = await self.backend.artifact_builds.prepare_run(
            self.language, dataclasses.replace(step, argv=(*step.argv, *args)))
        if self.tests is not None:
            assert self.language.split is not None
            step = split.paired(step, self.language.split.may_fork)
        again = False

        async def attempt() -> RunResult:
            nonlocal again
            if again:
                failed = await self._afresh(deadline)
                if failed is not None:
                    return failed
            again = True
            return await self.backend._run(self.slot, self.path, self.language, step, stdin, deadline, artifact_tree)

        return await at_most_twice(attempt, self.backend.deaths, f"slot {self.slot.index}: a {self.language.key} run")

    async def _afresh(self, deadline: float | None) -> RunResult | None:
        """The workspace as it was before its first run, for a run that goes again after its sandbox may have died:
        nothing the first try left is visible (its box emptied, its files laid out and compiled again). A sandbox
        error where the compile that succeeded before did not again, else None."""
        await self.slot.sweep()
        for sub in ("box", "tmp"):
            await asyncio.to_thread(remove_tree, self.path / sub)
            (self.path / sub).mkdir(mode=0o700)
            self.slot.own(self.path / sub)
        lay_out(self.slot, self.path, self.laid_out)
        compiled = await self.compile(deadline)
        if compiled is None or compiled.status is RunStatus.OK:
            return None
        return sandbox_error(f"the workspace, made again, did not compile again: {compiled.status.value} "
                             f"{compiled.detail}", compiled.elapsed_s)
