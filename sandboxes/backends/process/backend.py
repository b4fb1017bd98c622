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
- A run is one exec with no Python in the child: a tiny static launcher (sandboxes/backends/process/launcher.c, built at
  start) joins the slot's cgroups, sets the rlimits, drops to the slot uid with no new privileges and
  runs `bwrap`: new user/pid/net/ipc/uts/cgroup namespaces, everything read-only but the workspace,
  its /tmp and /dev/shm. The launcher costs ~3 ms of CPU less per
  run than `sh` + `setpriv` doing the same, and as a subreaper it reaps bwrap's init at once (no zombie
  outlives the run to eat the slot's pids budget).
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
import shutil
import signal
import subprocess
import tempfile
from collections.abc import AsyncIterator, Callable, Mapping, Sequence

from sandboxes.backend import SandboxError, SandboxInfo, workspace_files
from sandboxes.backends.process.cgroups import CgroupError, SlotCgroup, weigh_instance
from sandboxes.backends.process.instances import InstanceDir, reap_dead_instances
from sandboxes.languages import Language
from sandboxes.policy import BASE_ENV, FIXED_PATH, Ending, Step, classify, compile_step, cpu_check_delay, run_step
from sandboxes.results import Limits, RunResult, RunStatus

log = logging.getLogger(__name__)

BASE_UID = 20000
UID_LOCK_DIR = pathlib.Path("/run/reward-sandboxes")
UID_SEARCH = 10000              # how far above base_uid to look for free uids
SANDBOX_DIR = "/sandbox"
SLOT_TMPFS_MB = 4096            # cap per slot; the memory cgroup is what really bounds a run's files
VERSION_TIMEOUT_S = 60.0
KILL_GRACE_S = 2.0              # after killing the program, how long bwrap gets to report before it dies too

LAUNCHER_SOURCE = pathlib.Path(__file__).with_name("launcher.c")
_SIGNAL_EXIT = 128
_SIGNALS = frozenset(signal.valid_signals())
_OUR_PROCESSES = 3              # the launcher, bwrap and bwrap's init share the slot's process budget
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
    cgroup: SlotCgroup
    busy: bool = False


class _Collector(asyncio.SubprocessProtocol):
    """Collects stdout/stderr up to a cap; calls `stop("output")` when the program writes past it."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.out = [bytearray(), bytearray(), bytearray()]
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.stop_reason: str | None = None
        self.on_stop = lambda: None

    def stop(self, reason: str) -> None:
        if self.stop_reason is None and not self.done.done():
            self.stop_reason = reason
            self.on_stop()

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        buffer = self.out[fd]
        room = self.max_bytes - len(buffer)
        buffer += data[:room] if room > 0 else b""
        if len(data) > room:
            self.stop("output")

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_result(None)


class _CpuWatch:
    """Stops a run once its processes together have spent the step's CPU budget."""

    def __init__(self, cgroup: SlotCgroup, before_ns: int, budget_s: float, collector: _Collector) -> None:
        self.cgroup = cgroup
        self.before_ns = before_ns
        self.budget_s = budget_s
        self.collector = collector
        self.loop = asyncio.get_running_loop()
        self.handle = self.loop.call_later(cpu_check_delay(budget_s), self._check)

    def _check(self) -> None:
        try:
            left = self.budget_s - (self.cgroup.cpu_ns() - self.before_ns) / _NS
        except OSError as e:  # the reading after the run reports it as a sandbox error
            log.error("cannot read %s: %s", self.cgroup.cpuacct, e)
            return
        if left < 0:
            self.collector.stop("cpu")
        else:
            self.handle = self.loop.call_later(cpu_check_delay(left), self._check)

    def cancel(self) -> None:
        self.handle.cancel()


class ProcessBackend:
    """Runs programs with the host's toolchains, one bubblewrap sandbox per compile or run."""

    name = "process"

    def __init__(self, base_uid: int = BASE_UID) -> None:
        self.base_uid = base_uid
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
            self._tools["launcher"] = await self._build_launcher()
            for index in range(slots):
                self._slots.append(await self._make_slot(index))
            weigh_instance(self._root.name, slots)
            await self._smoke_test()
        except (CgroupError, OSError) as e:
            await self.close()
            raise SandboxError(f"process backend cannot start: {e}") from e
        except SandboxError:
            await self.close()
            raise

    async def _build_launcher(self) -> str:
        target = self._root / "launcher"
        gcc = await asyncio.create_subprocess_exec(
            self._tools["gcc"], "-O2", "-static", "-o", str(target), str(LAUNCHER_SOURCE),
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, err = await gcc.communicate()
        if gcc.returncode != 0:
            raise SandboxError(f"cannot build the sandbox launcher: {err.decode(errors='replace')[-500:]}")
        target.chmod(0o700)
        return str(target)

    async def _make_slot(self, index: int) -> _Slot:
        uid, uid_lock = self._claim_uid()
        try:
            cgroup = SlotCgroup.create(self._root.name, f"slot{index}")
        except CgroupError:
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
            cgroup.remove()
            os.close(uid_lock)
            raise SandboxError(f"cannot mount a tmpfs on {root}: {err.decode(errors='replace').strip()}")
        return _Slot(index, uid, uid_lock, root, cgroup)

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
            try:
                slot.cgroup.remove()
            except CgroupError as e:
                log.error("slot %d: %s", slot.index, e)
            await _umount(slot.root)
            os.close(slot.uid_lock)
        self._slots = []
        if self._instance is not None:
            (self._root / "launcher").unlink(missing_ok=True)
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
                if state.cgroup.members():
                    await _sweep(state.cgroup)
            finally:
                # a thread: a program may leave many thousands of files behind, and the loop must not wait
                await asyncio.to_thread(shutil.rmtree, path, ignore_errors=True)
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

    async def _execute(self, slot: _Slot, path: pathlib.Path, step: Step, stdin: bytes, *,
                       deadline: float | None) -> RunResult:
        """Run the step in a fresh sandbox of `slot` with /sandbox = path/box; never leaves a process behind.

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
        collector = _Collector(step.limits.max_output_bytes)
        def command(status_fd: int) -> list[str]:
            return self._command(slot, path, step, status_fd)

        inner = asyncio.ensure_future(self._sandboxed(slot, step, command, stdin, collector, budget, cut_by))
        try:
            outcome = await asyncio.shield(inner)
        except asyncio.CancelledError:
            collector.stop("cancelled")
            await asyncio.wait({inner}, timeout=KILL_GRACE_S + 5)
            raise
        if isinstance(outcome, RunResult):
            return outcome
        report, oomed, elapsed, cpu_s = outcome
        stdout, stderr = bytes(collector.out[1]), bytes(collector.out[2])
        ending = _ending(collector.stop_reason, oomed, report, path, step.limits, cpu_s)
        status, detail = classify(step, ending, stderr)
        return RunResult(status, report.get("exit-code"), stdout, stderr, elapsed, detail, cpu_s)

    async def _sandboxed(self, slot: _Slot, step: Step, command: Callable[[int], list[str]], stdin: bytes,
                         collector: _Collector, budget: float,
                         cut_by: str) -> RunResult | tuple[dict, bool, float, float]:
        """Spawn, feed, wait and clean up; bwrap's report, whether the OOM killer struck, the time taken and
        the CPU seconds the run's processes used."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        limits = step.limits
        try:
            slot.cgroup.set_limits(limits.memory_mb << 20, limits.max_processes + _OUR_PROCESSES)
            ooms_before = slot.cgroup.oom_kills()
            cpu_before = slot.cgroup.cpu_ns()
        except (CgroupError, OSError) as e:
            return _sandbox_error(f"cgroup: {e}", loop.time() - started)
        status_r, status_w = os.pipe()
        try:
            try:
                transport, _ = await loop.subprocess_exec(
                    lambda: collector, *command(status_w), stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(step.env), pass_fds=(status_w,),
                    cwd="/")
            except OSError as e:
                return _sandbox_error(f"cannot spawn the sandbox: {e}", loop.time() - started)
            finally:
                os.close(status_w)
            collector.on_stop = lambda: self._kill(slot, transport, loop)
            if collector.stop_reason is not None:  # cancelled while spawning
                collector.on_stop()
            stdin_pipe = transport.get_pipe_transport(0)
            if stdin:
                stdin_pipe.write(stdin)
            stdin_pipe.write_eof()
            timer = loop.call_later(budget, collector.stop, cut_by)
            watch = (None if step.cpu_budget_s is None
                     else _CpuWatch(slot.cgroup, cpu_before, step.cpu_budget_s, collector))
            try:
                await collector.done
            finally:
                timer.cancel()
                if watch is not None:
                    watch.cancel()
                transport.close()
            report = _read_status(status_r)
        finally:
            os.close(status_r)
        elapsed = loop.time() - started
        try:
            oomed = slot.cgroup.oom_kills() > ooms_before
            if slot.cgroup.members():
                await _sweep(slot.cgroup)
            cpu_s = (slot.cgroup.cpu_ns() - cpu_before) / _NS
        except (CgroupError, OSError) as e:
            return _sandbox_error(f"cgroup: {e}", elapsed)
        return report, oomed, elapsed, cpu_s

    def _command(self, slot: _Slot, path: pathlib.Path, step: Step, status_fd: int) -> list[str]:
        limits = step.limits
        cpu = "unlimited" if step.cpu_rlimit_s is None else str(step.cpu_rlimit_s)
        address_space_bytes = "unlimited" if step.address_space_bytes is None else str(step.address_space_bytes)
        return [
            self._tools["launcher"], *slot.cgroup.procs_files, "--",
            cpu, str(limits.max_file_bytes), str(limits.max_open_files), str(limits.max_processes + _OUR_PROCESSES),
            address_space_bytes, str(slot.uid), "--",
            self._tools["bwrap"], "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
            "--new-session", "--cap-drop", "ALL", "--json-status-fd", str(status_fd),
            *self._mounts,
            "--bind", str(path / "box"), SANDBOX_DIR, "--bind", str(path / "tmp"), "/tmp", "--chdir", SANDBOX_DIR,
            "--remount-ro", "/",
            "--", _which(step.argv[0]) or step.argv[0], *step.argv[1:],
        ]

    @staticmethod
    def _kill(slot: _Slot, transport: asyncio.SubprocessTransport, loop: asyncio.AbstractEventLoop) -> None:
        """Kill everything under the launcher (bwrap, its init, the program); the launcher reaps them.

        Killing the launcher first would orphan their zombies to the host's init, where they would keep
        counting against the slot's pids limit. The launcher itself is killed only if it has not started
        bwrap yet, or does not exit soon after.
        """
        outer_pid = transport.get_pid()
        try:
            inner = [pid for pid in slot.cgroup.members() if pid != outer_pid]
        except OSError:
            inner = []
        for pid in inner:
            _kill_quietly(pid)
        if not inner:
            _kill_unreaped(transport)
        loop.call_later(KILL_GRACE_S, _kill_unreaped, transport)


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
        return await self.backend._execute(self.slot, self.path, step, b"", deadline=deadline)

    async def run(self, stdin: bytes, limits: Limits, deadline: float | None, args: Sequence[str] = ()) -> RunResult:
        step = run_step(self.language, self.source, limits)
        step = dataclasses.replace(step, argv=(*step.argv, *args))
        return await self.backend._execute(self.slot, self.path, step, stdin, deadline=deadline)


def _ending(stop_reason: str | None, oomed: bool, report: dict, path: pathlib.Path, limits: Limits,
            cpu_s: float) -> Ending:
    """bwrap's report as an Ending: its init exits 128 + N when the program died of signal N."""
    if stop_reason is not None:
        return Ending(stopped=stop_reason, cpu_s=cpu_s)
    code = report.get("exit-code")
    if code is None:
        return Ending(oom_killed=oomed, sandbox_failure="the program could not be started" if "child-pid" in report
                      else "the sandbox failed before the program started", cpu_s=cpu_s)
    died_of = code - _SIGNAL_EXIT if code > _SIGNAL_EXIT and code - _SIGNAL_EXIT in _SIGNALS else None
    return Ending(oom_killed=oomed, exit_code=None if died_of else code, signal=died_of,
                  file_limit_hit=code != 0 and _has_file_at_least(path, limits.max_file_bytes), cpu_s=cpu_s)


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


def _kill_unreaped(transport: asyncio.SubprocessTransport) -> None:
    """SIGKILL our child unless it was already reaped (its pid could then belong to someone else)."""
    if transport.get_returncode() is None:
        _kill_quietly(transport.get_pid())


def _kill_quietly(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


async def _sweep(cgroup: SlotCgroup) -> None:
    """Kill whatever is left in a slot's groups (nothing, normally: the pid namespace died with its init)."""
    for _ in range(500):
        members = cgroup.members()
        if not members:
            return
        log.warning("killing %d processes left in %s", len(members), cgroup.pids)
        for pid in members:
            _kill_quietly(pid)
        await asyncio.sleep(0.01)
    raise CgroupError(f"processes {cgroup.members()} survive SIGKILL in {cgroup.pids}")


async def _umount(path: pathlib.Path) -> None:
    proc = await asyncio.create_subprocess_exec("umount", str(path), stdout=subprocess.DEVNULL,
                                                stderr=subprocess.PIPE)
    _, err = await proc.communicate()
    if proc.returncode != 0:
        log.error("umount %s: %s", path, err.decode(errors="replace").strip())
        return
    with contextlib.suppress(OSError):
        path.rmdir()
