"""The embedded `process` backend: host toolchains, each run in fresh bubblewrap namespaces.

Why it looks the way it does (measured on the target machines):
- Each pool slot runs as its own unprivileged uid, so RLIMIT_NPROC binds per slot (uids are claimed
  with a lock file each in UID_LOCK_DIR, so several servers or test runs on one host never share one),
  and in its own pre-created cgroup v1 `memory`, `pids`, `cpu` and `cpuacct` groups. Memory is limited by
  the cgroup: RLIMIT_AS breaks the JVM, node, Go, rustc and mono, so it is only added where the table says
  so. The slots' `cpu` groups weigh the same, so a slot that starts many busy processes slows its
  neighbours no more than one that starts a single one; together they weigh what as many processes would.
- A run's time limit is its CPU time (the slot's `cpuacct` counter, every process of the run), checked
  while it runs only when the budget could first be spent; the wall clock is only a backstop (policy.py).
- A run's peak memory is the slot's memory high-water mark less what the group held as it started (its residents,
  page cache earlier steps left): what the run itself charged against its memory limit, sandbox included.
- A run is one exec with no Python in the child: a tiny static launcher (sandboxes/backends/process/launcher.c, built at
  start) joins the slot's cgroups, sets the rlimits, drops to the slot uid with no new privileges and
  runs `bwrap`: new user/pid/net/ipc/uts/cgroup namespaces, everything read-only but the workspace,
  its /tmp and /dev/shm. The launcher costs ~3 ms of CPU less per
  run than `sh` + `setpriv` doing the same, and as a subreaper it reaps bwrap's init at once (no zombie
  outlives the run to eat the slot's pids budget). The server spawns it with posix_spawn, reaps it through a pidfd
  and pumps its pipes itself (child.py, streams.py): asyncio's subprocess machinery cost more CPU than a run.
- Except the runs of a language whose table entry has `warm_imports` (Python): they fork from a warm interpreter
  that lives in the slot's sandbox (zygote.py, zygote_main.py), with the same limits, namespaces and verdicts (the
  `zygote` option turns it off). A slot's zygotes are its residents: their processes and memory are added to every
  limit of the slot.
- A compile sees, read-only, its language's tree of precompiled headers, its JVM compiler's class archive or its
  compiler's snapshot, and a JVM run its runtime's class archive, built on first use (precompiled.py).
- When the program exits, its pid namespace dies with it: nothing it left running survives the run.
  The CPU limit's soft signal (SIGXCPU) marks a CPU-time death; a SIGKILL is the OOM killer's only if
  the memory cgroup's counter moved.
- bwrap reports on a status pipe whether the program ran and how it exited: no report means the sandbox
  failed to start, which is never blamed on the program (a program cannot forge it on stderr).
- Each slot's workspaces live on a tmpfs of its own, so whatever a program writes is charged to its
  memory cgroup and bounded, never to the host disk. Sandboxes die with the server (PDEATHSIG); what a
  killed server leaves behind (mounts, cgroups) is removed by the next one to start (instances.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import fcntl
import hashlib
import itertools
import json
import logging
import os
import pathlib
import resource
import shutil
import signal
import subprocess
import tempfile
from collections.abc import AsyncIterator, Mapping, Sequence

from sandboxes import guards
from sandboxes.backend import LimitsInfo, SandboxError, SandboxInfo, workspace_files
from sandboxes.backends.process.child import EXTRA_FD, Child
from sandboxes.backends.process.host import choose
from sandboxes.backends.process.instances import InstanceDir, reap_dead_instances
from sandboxes.backends.process.limits import RLIMITS, LimitsError, Mechanism, RunMeter, SlotLimits, Usage
from sandboxes.backends.process.precompiled import Precompiled
from sandboxes.backends.process.streams import RunStreams
from sandboxes.backends.process.zygote import CAPABILITIES, INIT, SCRIPT, SCRIPT_DIR, Answer, Zygote
from sandboxes.languages import Language
from sandboxes.policy import BASE_ENV, FIXED_PATH, Ending, Step, classify, compile_step, cpu_check_delay, run_step
from sandboxes.precompile import MOUNT as PRECOMPILED_MOUNT
from sandboxes.results import Limits, RunResult, RunStatus

log = logging.getLogger(__name__)

BASE_UID = 20000
UID_LOCK_DIR = pathlib.Path("/run/reward-sandboxes")
UID_SEARCH = 10000              # how far above base_uid to look for free uids
SANDBOX_DIR = "/sandbox"
SLOT_TMPFS_MB = 4096            # cap per slot; the memory cgroup is what really bounds a run's files
VERSION_TIMEOUT_S = 60.0
KILL_GRACE_S = 2.0              # after killing the program, how long bwrap gets to report before it dies too
KILL_AGAIN_S = 0.05             # a stopped run of a zygote is killed again this often until it has ended
SMALL_WORKSPACE = 64            # entries a finished workspace may hold to be removed on the loop, not in a thread

LAUNCHER_SOURCE = pathlib.Path(__file__).with_name("launcher.c")
RUN_INIT_SOURCE = pathlib.Path(__file__).with_name("run_init.c")
ZYGOTE_SOURCE = pathlib.Path(__file__).with_name("zygote_main.py")
_SIGNAL_EXIT = 128
_SIGNALS = frozenset(signal.valid_signals())
_OUR_PROCESSES = 3              # the launcher, bwrap and bwrap's init share the slot's process budget
_RUN_INIT = 1                   # a zygote's run adds its init (the zygote's own processes are the slot's residents)
_NS = 1e9


# The devices programs use, bound one by one: bwrap's --dev (a /dev tmpfs, more nodes, devpts) costs
# ~1.1 ms more CPU per run (measured) and adds only ttys and /dev/full. /dev/shm (POSIX semaphores,
# multiprocessing) is a tmpfs of its own, charged to the sandbox's memory cgroup.
_DEVICES = ("null", "zero", "random", "urandom")
_STD_LINKS = (("/proc/self/fd", "/dev/fd"), ("/proc/self/fd/0", "/dev/stdin"), ("/proc/self/fd/1", "/dev/stdout"),
              ("/proc/self/fd/2", "/dev/stderr"))


def _system_mounts() -> list[str]:
    """Read-only system directories (merged-/usr symlinks kept as symlinks), fresh /proc, minimal /dev."""
    args = ["--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = pathlib.Path("/", name)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    args += ["--proc", "/proc"]
    for device in _DEVICES:
        args += ["--dev-bind", f"/dev/{device}", f"/dev/{device}"]
    for target, link in _STD_LINKS:
        args += ["--symlink", target, link]
    return [*args, "--tmpfs", "/dev/shm"]


def _which(program: str) -> str | None:
    if program.startswith("./"):
        return program
    if os.path.isabs(program):
        return program if os.access(program, os.X_OK) else None
    return shutil.which(program, path=FIXED_PATH)


@dataclasses.dataclass
class _Slot:
    index: int
    uid: int
    uid_lock: int               # fd holding the flock that reserves `uid` for this process
    root: pathlib.Path          # this slot's tmpfs
    limits: SlotLimits
    busy: bool = False
    zygotes: dict[str, Zygote] = dataclasses.field(default_factory=dict)    # by language key

    @property
    def resident_pids(self) -> frozenset[int]:
        """The processes that live in the slot between runs (its zygotes), counted on top of every limit."""
        return frozenset().union(*(zygote.resident_pids for zygote in self.zygotes.values()))

    @property
    def resident_bytes(self) -> int:
        return sum(zygote.resident_bytes for zygote in self.zygotes.values())

    def strangers(self) -> list[int]:
        """The processes in the slot's groups that are not its residents (none, between runs)."""
        try:
            return [pid for pid in self.limits.members() if pid not in self.resident_pids]
        except OSError:
            return []


class _CpuWatch:
    """Stops a run once its processes together have spent the step's CPU budget (where cgroups count it live)."""

    def __init__(self, meter: RunMeter, budget_s: float, streams: RunStreams) -> None:
        self.meter = meter
        self.budget_s = budget_s
        self.streams = streams
        self.loop = asyncio.get_running_loop()
        self.handle = self.loop.call_later(cpu_check_delay(budget_s), self._check)

    def _check(self) -> None:
        try:
            left = self.budget_s - self.meter.cpu_ns() / _NS
        except OSError as e:  # the reading after the run reports it as a sandbox error
            log.error("cannot read the CPU counter: %s", e)
            return
        if left < 0:
            self.streams.stop("cpu")
        else:
            self.handle = self.loop.call_later(cpu_check_delay(left), self._check)

    def cancel(self) -> None:
        self.handle.cancel()


class ProcessBackend:
    """Runs programs with the host's toolchains, one bubblewrap sandbox per compile or run."""

    name = "process"

    def __init__(self, base_uid: int = BASE_UID, zygote: bool = True, limits: str = "auto") -> None:
        self.base_uid = base_uid
        self.zygote = zygote
        self.limits_choice = limits
        self.mechanism: Mechanism | None = None
        self._precompiled: Precompiled | None = None
        self._infos: dict[str, SandboxInfo] = {}
        self._slots: list[_Slot] = []
        self._instance: InstanceDir | None = None
        self._root: pathlib.Path | None = None
        self._mounts = _system_mounts()
        self._counter = itertools.count()
        self._tools: dict[str, str] = {}

    # --- describe ---------------------------------------------------------------------------------

    def describe(self, language: Language) -> SandboxInfo:
        info = self._infos.get(language.key)
        if info is None:
            info = self._infos[language.key] = self._probe(language)
        return info

    def _probe(self, language: Language) -> SandboxInfo:
        programs = [language.version[0], *(language.compile or ())[:1], language.run[0]]
        binaries = []
        for program in dict.fromkeys(programs):
            if program.startswith("./"):
                continue
            path = _which(program)
            if path is None:
                return SandboxInfo(False, f"{program} not found on {FIXED_PATH}", "", "")
            binaries.append(os.path.realpath(path))
        for argument in (*(language.compile or ())[1:], *language.run[1:]):
            for part in argument.split(":"):  # class paths name several
                if part.startswith("/") and not os.path.exists(part):
                    return SandboxInfo(False, f"{part} (named by the {language.key} commands) does not exist", "", "")
        env = {**BASE_ENV, **language.env, "HOME": tempfile.gettempdir()}
        try:
            done = subprocess.run([_which(language.version[0]), *language.version[1:]], capture_output=True,
                                  env=env, timeout=VERSION_TIMEOUT_S, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as e:
            return SandboxInfo(False, f"{' '.join(language.version)} failed: {e}", "", "")
        text = (done.stdout + b"\n" + done.stderr).decode(errors="replace")
        lines = [line.strip() for line in text.splitlines() if line.strip() and "warning" not in line.lower()]
        if done.returncode != 0 or not lines:
            return SandboxInfo(False, f"{' '.join(language.version)} exited {done.returncode}: {text[-300:]}", "", "")
        digest = hashlib.sha256()
        for binary in binaries:
            digest.update(binary.encode() + b"\0")
            with open(binary, "rb") as f:
                digest.update(hashlib.file_digest(f, "sha256").digest())
        digest.update(text.encode())
        return SandboxInfo(True, "", lines[0], f"process:{language.key}:{digest.hexdigest()[:16]}")

    # --- lifecycle --------------------------------------------------------------------------------

    def limits(self) -> LimitsInfo:
        if self.mechanism is None:
            raise SandboxError("the process backend is not started")
        return LimitsInfo(self.mechanism.name, self.mechanism.weaker)

    async def start(self, slots: int) -> None:
        if os.geteuid() != 0:
            raise SandboxError("the process backend must run as root: it runs each slot as its own uid")
        for tool in ("gcc", "bwrap"):
            path = _which(tool)
            if path is None:
                raise SandboxError(f"{tool} not found on {FIXED_PATH} (run sandboxes/setup.sh)")
            self._tools[tool] = path
        reap_dead_instances()
        self._instance = InstanceDir()
        self._root = self._instance.path
        try:
            self.mechanism = choose(self.limits_choice, self._root.name)
            self._tools["launcher"], self._tools["run-init"] = await asyncio.gather(
                self._build(LAUNCHER_SOURCE, "launcher", 0o700),
                self._build(RUN_INIT_SOURCE, "run-init", 0o755, "-nostdlib", "-fno-stack-protector"))
            shutil.copyfile(ZYGOTE_SOURCE, self._root / "zygote.py")
            (self._root / "zygote.py").chmod(0o644)
            (self._root / "precompiled").mkdir(mode=0o755)
            self._precompiled = Precompiled(self._root / "precompiled")
            for index in range(slots):
                self._slots.append(await self._make_slot(index))
            self.mechanism.finish_start(slots)
            await self._smoke_test()
        except (LimitsError, OSError) as e:
            await self.close()
            raise SandboxError(f"process backend cannot start: {e}") from e
        except SandboxError:
            await self.close()
            raise

    async def _build(self, source: pathlib.Path, name: str, mode: int, *flags: str) -> str:
        """A static binary of ours (the launcher; the zygote runs' init), in the instance's directory."""
        target = self._root / name
        gcc = await asyncio.create_subprocess_exec(
            self._tools["gcc"], "-O2", "-static", *flags, "-o", str(target), str(source),
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, err = await gcc.communicate()
        if gcc.returncode != 0:
            raise SandboxError(f"cannot build the sandbox {name}: {err.decode(errors='replace')[-500:]}")
        target.chmod(mode)
        return str(target)

    async def _make_slot(self, index: int) -> _Slot:
        uid, uid_lock = self._claim_uid()
        try:
            limits = self.mechanism.slot(index)
        except LimitsError:
            os.close(uid_lock)
            raise
        root = self._root / f"slot{index}"
        root.mkdir()
        mount = await asyncio.create_subprocess_exec(
            "mount", "-t", "tmpfs", "-o", f"size={SLOT_TMPFS_MB}m,mode=0711,nosuid,nodev", "tmpfs", str(root),
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, err = await mount.communicate()
        if mount.returncode != 0:
            root.rmdir()
            limits.remove()
            os.close(uid_lock)
            raise SandboxError(f"cannot mount a tmpfs on {root}: {err.decode(errors='replace').strip()}")
        return _Slot(index, uid, uid_lock, root, limits)

    def _claim_uid(self) -> tuple[int, int]:
        """The first uid from base_uid up that no other process holds (a flock, released if we die)."""
        UID_LOCK_DIR.mkdir(parents=True, exist_ok=True)
        taken = {slot.uid for slot in self._slots}
        for uid in range(self.base_uid, self.base_uid + UID_SEARCH):
            if uid in taken:
                continue
            fd = os.open(UID_LOCK_DIR / f"uid-{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            return uid, fd
        raise SandboxError(f"no free sandbox uid in {self.base_uid}..{self.base_uid + UID_SEARCH}")

    async def _smoke_test(self) -> None:
        """One trivial sandboxed run, so a host that cannot sandbox fails at start, not on every program."""
        slot = self._slots[0]
        path = self._new_workspace_dir(slot)
        try:
            step = Step(("/bin/true",), BASE_ENV, Limits(timeout_s=30, memory_mb=256), wall_s=30, cpu_budget_s=None,
                        cpu_rlimit_s=None, address_space_bytes=None)
            result = await self._execute(slot, path, step, b"", deadline=None)
        finally:
            shutil.rmtree(path, ignore_errors=True)
        if result.status is not RunStatus.OK:
            raise SandboxError(f"sandbox smoke test failed ({result.status.value}): {result.detail} "
                               f"{result.stderr.decode(errors='replace')[-500:]}")

    async def close(self) -> None:
        for slot in self._slots:
            for zygote in slot.zygotes.values():
                await zygote.close()
            slot.zygotes.clear()
            try:
                slot.limits.remove()
            except LimitsError as e:
                log.error("slot %d: %s", slot.index, e)
            await _umount(slot.root)
            os.close(slot.uid_lock)
        self._slots = []
        if self.mechanism is not None:
            self.mechanism.close()
            self.mechanism = None
        if self._instance is not None:
            for name in ("launcher", "run-init", "zygote.py"):
                (self._root / name).unlink(missing_ok=True)
            await asyncio.to_thread(shutil.rmtree, self._root / "precompiled", ignore_errors=True)
            self._instance.release()
            self._instance = None
            self._root = None

    # --- workspaces -------------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def workspace(self, language: Language, source: str, slot: int,
                        files: Mapping[str, str] | None = None) -> AsyncIterator[ProcessWorkspace]:
        if not 0 <= slot < len(self._slots):
            raise SandboxError(f"slot {slot} does not exist (started with {len(self._slots)} slots)")
        state = self._slots[slot]
        if state.busy:
            raise SandboxError(f"slot {slot} already holds a workspace")
        state.busy = True
        path = self._new_workspace_dir(state)
        try:
            for name, text in workspace_files(language, source, files).items():
                file_path = path / "box" / name
                file_path.write_text(text, encoding="utf-8", errors="surrogateescape")
                os.chown(file_path, state.uid, state.uid)
            yield ProcessWorkspace(self, language, source, state, path)
        finally:
            try:
                if state.limits.tasks() > len(state.resident_pids):
                    await _sweep(state)
            finally:
                try:
                    await _remove_workspace(path)
                finally:  # a cancellation during the removal must not leave the slot refusing every later candidate
                    state.busy = False

    def _new_workspace_dir(self, slot: _Slot) -> pathlib.Path:
        path = slot.root / f"w{next(self._counter)}"
        path.mkdir(mode=0o700)
        for sub in ("box", "tmp"):
            (path / sub).mkdir(mode=0o700)
            os.chown(path / sub, slot.uid, slot.uid)
        os.chown(path, slot.uid, slot.uid)
        return path

    # --- one sandboxed process --------------------------------------------------------------------

    async def _execute(self, slot: _Slot, path: pathlib.Path, step: Step, stdin: bytes, *, deadline: float | None,
                       zygote: Zygote | None = None, precompiled: pathlib.Path | None = None) -> RunResult | None:
        """Run the step in a fresh sandbox of `slot` with /sandbox = path/box, forked by `zygote` if given; never
        leaves a process behind. None: the zygote died under the run (not the program's doing; run it again).

        The sandbox runs in a shielded task: a caller that is cancelled (even mid-spawn) stops the
        program the same way a timeout does, and waits for it to be gone before the cancellation goes on.
        """
        loop = asyncio.get_running_loop()
        budget, cut_by = step.wall_s, "wall"
        if deadline is not None:
            if deadline <= loop.time():
                return RunResult(RunStatus.DEADLINE, None, b"", b"", 0.0, "the deadline passed before the run")
            if deadline - loop.time() < budget:
                budget, cut_by = deadline - loop.time(), "deadline"
        streams = RunStreams(stdin, step.limits.max_output_bytes)
        inner = asyncio.ensure_future(self._supervise(slot, path, step, streams, budget, cut_by, zygote, precompiled))
        try:
            outcome = await asyncio.shield(inner)
        except asyncio.CancelledError:
            streams.stop("cancelled")
            await asyncio.wait({inner}, timeout=KILL_GRACE_S + 5)
            raise
        if not isinstance(outcome, tuple):
            return outcome
        ending, exit_code, elapsed = outcome
        status, detail = classify(step, ending, streams.stderr)
        return RunResult(status, exit_code, streams.stdout, streams.stderr, elapsed, detail, ending.cpu_s,
                         ending.peak_memory_bytes)

    async def _supervise(self, slot: _Slot, path: pathlib.Path, step: Step, streams: RunStreams, budget: float,
                         cut_by: str, zygote: Zygote | None,
                         precompiled: pathlib.Path | None) -> RunResult | tuple[Ending, int | None, float] | None:
        """Start, feed, watch, wait and clean up: how the run ended, its exit status and the time it took."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        limits = step.limits
        try:
            try:
                ours = len(slot.resident_pids) + (_RUN_INIT if zygote else _OUR_PROCESSES)
                slot.limits.set_limits((limits.memory_mb << 20) + slot.resident_bytes, limits.max_processes + ours)
                meter = slot.limits.begin()
            except (LimitsError, OSError) as e:
                streams.close()
                return _sandbox_error(f"limits: {e}", loop.time() - started)
            try:
                run = (_Forked(slot, path, step, streams, zygote, meter, self._data_limit(step)) if zygote is not None
                       else _Spawned(slot, self._command(slot, path, step, precompiled, meter), step, streams))
            except OSError as e:
                meter.close()
                if zygote is not None:     # it is gone: replace it and run again
                    log.warning("slot %d: cannot hand the zygote a run: %s", slot.index, e)
                    zygote.kill()
                    return None
                return _sandbox_error(f"cannot spawn the sandbox: {e}", loop.time() - started)
            streams.on_stop = run.stop
            streams.start()
            if streams.stop_reason is not None:  # cancelled while spawning
                run.stop()
            timer = loop.call_later(budget, streams.stop, cut_by)
            live = step.cpu_budget_s is not None and meter.cpu_ns() is not None
            watch = _CpuWatch(meter, step.cpu_budget_s, streams) if live else None
            try:
                ended = await run.finished()
                streams.ended = True
            finally:
                timer.cancel()
                if watch is not None:
                    watch.cancel()
        finally:
            streams.close()
        elapsed = loop.time() - started
        try:
            if slot.limits.tasks() > len(slot.resident_pids):
                await _sweep(slot)
            measured = meter.finish(run.usage)
        except (LimitsError, OSError) as e:
            return _sandbox_error(f"limits: {e}", elapsed)
        finally:
            meter.close()
        if ended is None:          # the zygote died
            if streams.stop_reason is None and not measured.oom_killed:
                return None
            ended = (None, "the zygote died")
        exit_code, failure = ended
        ending = _ending(streams.stop_reason, measured.oom_killed, exit_code, failure, path, limits, measured.cpu_s,
                         measured.peak_bytes)
        return ending, exit_code, elapsed

    def _data_limit(self, step: Step) -> int | None:
        """RLIMIT_DATA: the step's memory limit where rlimits are all there is (rlimit_slots.py), else none."""
        return (step.limits.memory_mb << 20) if self.mechanism.name == "rlimit" else None

    def _command(self, slot: _Slot, path: pathlib.Path, step: Step, precompiled: pathlib.Path | None,
                 meter: RunMeter) -> list[str]:
        limits = step.limits
        processes = limits.max_processes + _OUR_PROCESSES + len(slot.resident_pids)
        headers = ["--ro-bind", str(precompiled), PRECOMPILED_MOUNT] if precompiled is not None else []
        return [
            self._tools["launcher"], *meter.join, "--",
            *(_rlimit_text(value) for value in (step.cpu_rlimit_s, limits.max_file_bytes, limits.max_open_files,
                                                processes, step.address_space_bytes, self._data_limit(step))),
            str(slot.uid), "--",
            self._tools["bwrap"], "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
            "--new-session", "--cap-drop", "ALL", "--json-status-fd", str(EXTRA_FD),
            *self._mounts, *headers,
            "--bind", str(path / "box"), SANDBOX_DIR, "--bind", str(path / "tmp"), "/tmp", "--chdir", SANDBOX_DIR,
            "--remount-ro", "/",
            "--", _which(step.argv[0]) or step.argv[0], *step.argv[1:],
        ]

    # --- zygotes ----------------------------------------------------------------------------------

    async def _run(self, slot: _Slot, path: pathlib.Path, language: Language, step: Step, stdin: bytes,
                   deadline: float | None, precompiled: pathlib.Path | None) -> RunResult:
        """A run: forked by the slot's zygote for the language when it has one, else spawned (seeing `precompiled`).
        A zygote that died under a run is replaced and the run goes again, once; a zygote that cannot start is a
        sandbox error."""
        prefix = _zygote_prefix(language, step) if self.zygote else None
        if prefix is None:
            return await self._execute(slot, path, step, stdin, deadline=deadline, precompiled=precompiled)
        for _ in range(2):
            zygote = slot.zygotes.get(language.key)
            if zygote is not None and not (zygote.alive and zygote.serves(prefix, dict(step.env))):
                await self._drop_zygote(slot, language.key)
                zygote = None
            if zygote is None:
                try:
                    zygote = await self._start_zygote(slot, language, step, prefix)
                except (SandboxError, LimitsError, OSError) as e:
                    return _sandbox_error(f"zygote: {e}", 0.0)
            result = await self._execute(slot, path, step, stdin, deadline=deadline, zygote=zygote)
            if result is not None:
                return result
            log.warning("slot %d: the %s zygote died under a run; replacing it", slot.index, language.key)
            await self._drop_zygote(slot, language.key)
        return _sandbox_error("the zygote died under this run twice", 0.0)

    async def _start_zygote(self, slot: _Slot, language: Language, step: Step, prefix: tuple[str, ...]) -> Zygote:
        """A new zygote in the slot, started under the run's memory limit; what it holds becomes resident."""
        slot.limits.set_limits((step.limits.memory_mb << 20) + slot.resident_bytes,
                               step.limits.max_processes + _OUR_PROCESSES + len(slot.resident_pids))
        bytes_before, pids_before = slot.resident_bytes, slot.resident_pids
        guard_module, guard_mount = [], []
        if language.guard:      # imported last, so that it sees every module a run may import (sandboxes/guards)
            guard_module = [guards.zygote_module(language.guard)]
            guard_mount = ["--ro-bind", str(guards.source(language.guard)), f"{SCRIPT_DIR}/{guard_module[0]}.py"]
        command = [
            self._tools["launcher"], *slot.limits.resident_join, "--",
            *_own_hard_limits(), str(slot.uid), "--",
            self._tools["bwrap"], "--unshare-all", "--unshare-user", "--die-with-parent", "--new-session", "--as-pid-1",
            *itertools.chain.from_iterable(("--cap-add", cap) for cap in CAPABILITIES),
            *self._mounts,
            "--bind", str(slot.root), SANDBOX_DIR, "--ro-bind", str(self._root / "zygote.py"), SCRIPT,
            "--ro-bind", self._tools["run-init"], INIT, *guard_mount,
            "--chdir", SANDBOX_DIR, "--remount-ro", "/",
            "--", *prefix, SCRIPT, *language.warm_imports, *guard_module,
        ]
        zygote = await Zygote.start(command, dict(step.env), prefix)
        slot.limits.track(zygote.child.pid)
        try:
            zygote.resident_pids = frozenset(slot.limits.members()) - pids_before
            zygote.resident_bytes = max(0, slot.limits.anon_bytes() - bytes_before)
        except (LimitsError, OSError):
            await zygote.close()
            raise
        slot.zygotes[language.key] = zygote
        return zygote

    async def _drop_zygote(self, slot: _Slot, key: str) -> None:
        zygote = slot.zygotes.pop(key, None)
        if zygote is not None:
            await zygote.close()
            if slot.limits.tasks() > len(slot.resident_pids):
                await _sweep(slot)


class _Spawned:
    """A run started by exec (the launcher, bwrap, then the program) and bwrap's report of how it went."""

    def __init__(self, slot: _Slot, command: list[str], step: Step, streams: RunStreams) -> None:
        self.slot = slot
        self.streams = streams
        self._status, status_w = os.pipe()
        try:
            self.child = Child(command, dict(step.env), streams.child_fds, status_w)
        except OSError:
            os.close(self._status)
            raise
        finally:
            os.close(status_w)
        slot.limits.track(self.child.pid)
        self.usage: Usage | None = None

    def stop(self) -> None:
        """Kill everything under the launcher (bwrap, its init, the program); the launcher reaps them.

        Killing the launcher first would orphan their zombies to the host's init, where they would keep
        counting against the slot's pids limit. The launcher itself is killed only if it has not started
        bwrap yet, or does not exit soon after.
        """
        inner = [pid for pid in self.slot.strangers() if pid != self.child.pid]
        for pid in inner:
            _kill_quietly(pid)
        if not inner:
            self.child.kill()
        asyncio.get_running_loop().call_later(KILL_GRACE_S, self.child.kill)

    async def finished(self) -> tuple[int | None, str]:
        """bwrap's init exit status (128 + N when the program died of signal N), or why there is none."""
        try:
            await asyncio.gather(self.child.wait(), self.streams.done)
            report = _read_status(self._status)
        finally:
            os.close(self._status)
        if "usage" in report:
            self.usage = _usage(*report["usage"])
        code = report.get("exit-code")
        if code is not None:
            return code, ""
        return None, ("the program could not be started" if "child-pid" in report
                      else "the sandbox failed before the program started")


class _Forked:
    """A run forked by the slot's zygote (zygote_main.py), and how its program ended."""

    def __init__(self, slot: _Slot, path: pathlib.Path, step: Step, streams: RunStreams, zygote: Zygote,
                 meter: RunMeter, data_bytes: int | None) -> None:
        self.slot = slot
        self.streams = streams
        self.zygote = zygote
        self.loop = asyncio.get_running_loop()
        self.usage: Usage | None = None
        self._stopped_at: float | None = None
        limits = step.limits
        script = len(zygote.prefix)
        if slot.uid != os.getuid():
            for fd in streams.child_fds:      # as the launcher does: a program may reopen them (/dev/stdin)
                os.fchown(fd, slot.uid, slot.uid)
        zygote.send({"workspace": path.name, "argv": [*zygote.prefix, *step.argv[script:]], "script": script,
                     "limits": {"cpu": step.cpu_rlimit_s or -1, "fsize": limits.max_file_bytes,
                                "nofile": limits.max_open_files, "nproc": limits.max_processes + _OUR_PROCESSES,
                                "as": step.address_space_bytes or -1, "data": data_bytes or -1}},
                    [*streams.child_fds, *meter.zygote_fds])
        self._answer = asyncio.ensure_future(zygote.answer())

    def stop(self) -> None:
        """Kill the run's processes (its init first takes the rest along), again until the zygote reports it ended:
        the init may not have been forked yet. A zygote that does not report within KILL_GRACE_S is killed."""
        if self._answer.done():
            return
        now = self.loop.time()
        if self._stopped_at is None:
            self._stopped_at = now
        if now - self._stopped_at > KILL_GRACE_S:
            self.zygote.kill()
            return
        for pid in self.slot.strangers():
            _kill_quietly(pid)
        self.loop.call_later(KILL_AGAIN_S, self.stop)

    async def finished(self) -> tuple[int | None, str] | None:
        """The program's exit status (128 + N for signal N), or why there is none; None if the zygote died."""
        answer: Answer | None = await self._answer
        await self.streams.done
        if answer is None:
            return None
        if answer.usage is not None:
            self.usage = _usage(*answer.usage)
        if not answer.started:
            return None, f"the zygote could not start the run: {answer.error}"
        return answer.exit_code, ""


class ProcessWorkspace:
    """One candidate program in one slot: compiled once, then run once per test."""

    def __init__(self, backend: ProcessBackend, language: Language, source: str, slot: _Slot,
                 path: pathlib.Path) -> None:
        self.backend = backend
        self.language = language
        self.source = source
        self.slot = slot
        self.path = path

    async def compile(self, deadline: float | None) -> RunResult | None:
        step = compile_step(self.language, self.source)
        if step is None:
            return None
        step, precompiled = await self.backend._precompiled.prepare(self.language, self.source, step)
        return await self.backend._execute(self.slot, self.path, step, b"", deadline=deadline, precompiled=precompiled)

    async def run(self, stdin: bytes, limits: Limits, deadline: float | None, args: Sequence[str] = ()) -> RunResult:
        step = run_step(self.language, self.source, limits)
        step, precompiled = await self.backend._precompiled.prepare_run(
            self.language, dataclasses.replace(step, argv=(*step.argv, *args)))
        return await self.backend._run(self.slot, self.path, self.language, step, stdin, deadline, precompiled)


def _zygote_prefix(language: Language, step: Step) -> tuple[str, ...] | None:
    """The interpreter and flags a zygote of the language runs (the run command up to its `{source}`, which must
    come last in the table), resolved on the fixed PATH; None if the language has no zygote."""
    if language.warm_imports is None or language.run[-1] != "{source}":
        return None
    prefix = step.argv[:len(language.run) - 1]
    return (_which(prefix[0]) or prefix[0], *prefix[1:])


def _own_hard_limits() -> list[str]:
    """The launcher's limits for a zygote (RLIMITS): this process's own hard limits, the most any run may be given;
    each run lowers them to its own."""
    hard = (resource.getrlimit(limit)[1] for limit in RLIMITS.values())
    return [_rlimit_text(None if value == resource.RLIM_INFINITY else value) for value in hard]


def _ending(stop_reason: str | None, oomed: bool, exit_code: int | None, failure: str, path: pathlib.Path,
            limits: Limits, cpu_s: float, peak_bytes: int) -> Ending:
    """The init's exit status as an Ending: it exits 128 + N when the program died of signal N."""
    measured = {"cpu_s": cpu_s, "peak_memory_bytes": peak_bytes}
    if stop_reason is not None:
        return Ending(stopped=stop_reason, **measured)
    if exit_code is None:
        return Ending(oom_killed=oomed, sandbox_failure=failure, **measured)
    died_of = exit_code - _SIGNAL_EXIT if exit_code > _SIGNAL_EXIT and exit_code - _SIGNAL_EXIT in _SIGNALS else None
    return Ending(oom_killed=oomed, exit_code=None if died_of else exit_code, signal=died_of,
                  file_limit_hit=exit_code != 0 and _has_file_at_least(path, limits.max_file_bytes), **measured)


def _rlimit_text(value: int | None) -> str:
    return "unlimited" if value is None else str(value)


def _usage(cpu_ns: int, max_rss_kib: int) -> Usage:
    return Usage(cpu_ns, max_rss_kib << 10)


def _read_status(fd: int) -> dict:
    """Merge bwrap's JSON status lines ({"child-pid": ...} at start, {"exit-code": ...} at exit)."""
    os.set_blocking(fd, False)
    chunks = []
    with contextlib.suppress(BlockingIOError):
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
    report: dict = {}
    for line in b"".join(chunks).splitlines():
        with contextlib.suppress(ValueError):
            report.update(json.loads(line))
    return report


def _has_file_at_least(path: pathlib.Path, size: int) -> bool:
    for directory, _, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                if os.lstat(os.path.join(directory, name)).st_size >= size:
                    return True
    return False


def _sandbox_error(detail: str, elapsed: float) -> RunResult:
    log.error("sandbox error: %s", detail)
    return RunResult(RunStatus.SANDBOX_ERROR, None, b"", b"", elapsed, detail)


def _kill_quietly(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


async def _sweep(slot: _Slot) -> None:
    """Kill whatever but its residents is left in a slot's groups (nothing, normally: the pid namespace died with
    its init)."""
    for _ in range(500):
        strangers = slot.strangers()
        if not strangers and slot.limits.tasks() <= len(slot.resident_pids):
            return
        if strangers:
            log.warning("killing %d processes left in slot %d", len(strangers), slot.index)
        for pid in strangers:
            _kill_quietly(pid)
        await asyncio.sleep(0.01)
    raise LimitsError(f"processes {slot.strangers()} survive SIGKILL in slot {slot.index}")


async def _remove_workspace(path: pathlib.Path) -> None:
    """Remove a finished workspace: on the loop when it is small (the usual case), else in a thread, since a program
    may leave many thousands of files behind and the loop must not wait for them."""
    if _fewer_entries_than(path, SMALL_WORKSPACE):
        shutil.rmtree(path, ignore_errors=True)
    else:
        await asyncio.to_thread(shutil.rmtree, path, ignore_errors=True)


def _fewer_entries_than(path: pathlib.Path, limit: int) -> bool:
    """Whether the tree under `path` holds fewer than `limit` entries (looking at no more than that many)."""
    seen, stack = 0, [path]
    while stack:
        try:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    seen += 1
                    if seen >= limit:
                        return False
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
        except OSError:
            continue
    return True


async def _umount(path: pathlib.Path) -> None:
    proc = await asyncio.create_subprocess_exec("umount", str(path), stdout=subprocess.DEVNULL,
                                                stderr=subprocess.PIPE)
    _, err = await proc.communicate()
    if proc.returncode != 0:
        log.error("umount %s: %s", path, err.decode(errors="replace").strip())
        return
    with contextlib.suppress(OSError):
        path.rmdir()
