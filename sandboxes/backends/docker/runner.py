#!/usr/bin/python3
"""In-container sandbox runner: one JSON job per stdin line, one JSON answer line on stdout.

It lives as the main process of a long-lived warm container, so a program's run costs a fork
instead of a `docker run`. Two request shapes:

* ours: {"op": "reset", "files": {name: text}} wipes the workdir and /tmp, kills leftover
  processes and writes the files; {"op": "remove", "names": [...]} removes workdir files (a compiled source);
  {"op": "pack", "paths": [glob, ...]} answers {"ok", "archive_b64"}: what a problem's build of a split's tests left
  in the sides (a tar archive, null where too big to keep), which the host keeps; {"op": "unpack", "archive_b64"}
  lays such an archive out in a workdir just reset (sandboxes/split/builds.py);
  {"op": "exec", "argv": [...], "stdin_b64": ..., "wall_s": ...,
  "cpu_budget_s": 0 | s, "cpu_rlimit_s": 0 | n, "max_output_bytes": ..., "max_file_bytes": ...,
  "max_open_files": ..., "address_space_bytes": 0 | n, "env": {...}} (runtime.runner_job) runs one step and
  answers how it ended {"ending": policy.Ending fields, "stdout_b64", "stderr_b64", "elapsed_s"}; the host's
  policy classifies it. The step's CPU time is the container cgroup's counter less the runner's own
  usage: every process the program started, dead or alive, and nothing else. Its peak memory is the program's
  ru_maxrss (wait4): the largest resident set of the program or a child it waited for, never below that of the
  runner's forked copy it was exec'd from (the kernel counts it); the container's cgroup is read-only here, so
  its high-water mark cannot be reset per run.
* the Agnostics verifier protocol: {"code", "timeout_s", "test_cases": [{"input", "output"}]} answers
  {"result": "success" | "fail:wrong-output" | "fail:error" | "fail:timeout" | "fail:other", ...}
  with that harness's rules (per-test timeout, first failure decides, rstrip equality), using the
  language baked into the image (/opt/sandbox/language.json) and the project's own sandboxes modules
  (languages, policy, toolchain_artifacts, runtime) baked next to it: a compile gets the image's toolchain
  artifacts as the docker backend's does.

The runner holds every request (the workspace's files, the tests among them, and a run's stdin) and runs as the
programs' own user, so it is not dumpable: a program cannot read its memory, its pipes or its environment
(/proc/<runner>/mem, fd/, environ), nor trace it, which it could otherwise do as its user's. A step's process stays so
from its fork to its exec, which replaces the runner's memory and makes the program dumpable: it takes its
oom_score_adj of 1000 from the runner at the fork (OomScore), for it may not write its own while not dumpable. Between
two jobs no process but the runner is left (kill_others, reap), so no program is there to meet the next one's.

Standard library only (plus those modules, themselves stdlib-only): it runs under the image's /usr/bin/python3.
"""

from __future__ import annotations

import base64
import contextlib
import ctypes
import glob
import io
import json
import math
import os
import resource
import selectors
import signal
import stat
import subprocess
import sys
import tarfile
import time
from collections.abc import Iterator

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the baked sandboxes package

from sandboxes.backends.docker.runtime import WORKDIR, baked_language, runner_job
from sandboxes.policy import Ending, Step, classify, compile_step, cpu_check_delay, run_step
from sandboxes.results import Limits, RunStatus
from sandboxes.split import PROGRAM_DIR, TESTS_DIR
from sandboxes.toolchain_artifacts import running, using
from sandboxes.trees import empty_tree

SCRATCH = "/tmp"
OOM_CONTROL = "/sys/fs/cgroup/memory/memory.oom_control"   # cgroup v1: its oom_kill line
MEMORY_EVENTS = "/sys/fs/cgroup/memory.events"              # cgroup v2: its oom_kill line
CPUACCT_USAGE = "/sys/fs/cgroup/cpuacct/cpuacct.usage"  # cgroup v1: nanoseconds
CPU_STAT = "/sys/fs/cgroup/cpu.stat"                      # cgroup v2: its usage_usec line
POLL_S = 0.05
SIDES = frozenset({WORKDIR, os.path.join(WORKDIR, TESTS_DIR), os.path.join(WORKDIR, PROGRAM_DIR)})
PR_SET_DUMPABLE = 4
MAX_ARCHIVE_BYTES = 64 << 20    # a build of the tests larger than this is not kept: each workspace builds it again
LIBC = ctypes.CDLL(None, use_errno=True)


def oom_kills() -> int:
    """The container cgroup's OOM-kill counter (cgroup v1 or v2); -1 where the kernel does not expose it."""
    for path in (OOM_CONTROL, MEMORY_EVENTS):
        try:
            with open(path) as f:
                for line in f:
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
        except OSError:
            continue
    return -1


def container_cpu_s() -> float:
    """CPU seconds every process of the container has used, this runner included (its cgroup's counter)."""
    try:
        with open(CPUACCT_USAGE) as f:
            return int(f.read()) / 1e9
    except FileNotFoundError:
        pass
    with open(CPU_STAT) as f:
        for line in f:
            key, _, value = line.partition(" ")
            if key == "usage_usec":
                return int(value) / 1e6
    raise OSError(f"no usage_usec line in {CPU_STAT}")


def program_cpu_s() -> float:
    """CPU seconds the container's processes but this runner have used."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    return container_cpu_s() - own.ru_utime - own.ru_stime


class CpuBudget:
    """A step's CPU budget, all its processes together; read only when it could first be spent."""

    def __init__(self, budget_s: float) -> None:
        self.budget_s = budget_s
        self.start_s = program_cpu_s()
        self.next_check = time.monotonic() + cpu_check_delay(budget_s) if budget_s else math.inf

    def used_s(self) -> float:
        return program_cpu_s() - self.start_s

    def spent(self) -> bool:
        now = time.monotonic()
        if now < self.next_check:
            return False
        left = self.budget_s - self.used_s()
        if left < 0:
            return True
        self.next_check = now + cpu_check_delay(left)
        return False


def exited(pid: int) -> bool:
    """Whether the program has exited, left unreaped: its rusage comes with its exit status (wait4)."""
    return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None


def kill_others() -> None:
    """SIGKILL every process in the container but this one (the job's, stragglers of the previous one): kill(-1) signals
    them all at once, so that none forks a survivor meanwhile, and spares the caller (and pid 1, this runner)."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(-1, signal.SIGKILL)


def reap() -> None:
    """Once kill_others has struck, wait until every other process has died and is collected (as the container's pid 1
    the runner inherits them all, and a zombie holds a pid): none is left to act on the next job."""
    with contextlib.suppress(ChildProcessError):
        while True:
            os.waitpid(-1, 0)


def workdir_file(name: str) -> str | None:
    """The path of a plain file name in the workdir or in one of a split's sides (sandboxes/split); None for a name
    that leaves them."""
    path = os.path.join(WORKDIR, name)
    return path if os.path.dirname(os.path.normpath(path)) in SIDES else None


def reset(files: dict[str, str]) -> dict:
    kill_others()
    reap()
    empty_tree(WORKDIR)     # whatever the last program left (sandboxes/trees.py); OSError: the container is replaced
    empty_tree(SCRATCH)
    for name, text in files.items():
        path = workdir_file(name)
        if path is None:
            return {"ok": False, "detail": f"file name {name!r} leaves the workdir"}
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return {"ok": True}


def remove(names: list[str]) -> dict:
    """The workdir files a compile consumed (the source): the runs after it must not see them."""
    for name in names:
        path = workdir_file(name)
        if path is None:
            return {"ok": False, "detail": f"file name {name!r} leaves the workdir"}
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
    return {"ok": True}


def side_path(name: str) -> str | None:
    """The path of a name in one of a split's sides, at any depth; None for a name that leaves them."""
    path = os.path.normpath(os.path.join(WORKDIR, name))
    sides = (os.path.join(WORKDIR, TESTS_DIR), os.path.join(WORKDIR, PROGRAM_DIR))
    return path if any(path == side or path.startswith(side + os.sep) for side in sides) else None


def pack(patterns: list[str]) -> dict:
    """What the `patterns` (globs in the workdir) match, with all under them, as a tar archive: directories, files and
    symbolic links (a link is not followed), with their modes and times. Asked right after a problem's build of its
    tests, before anything of the program is compiled or run here: the host keeps it for the problem's later
    workspaces."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for pattern in patterns:
            for name in sorted(glob.glob(pattern, root_dir=WORKDIR, include_hidden=True)):
                path = side_path(name)
                if path is None:
                    return {"ok": False, "detail": f"{name!r} leaves the sides"}
                found = [path]
                for top, dirs, files in os.walk(path):      # top-down, so a directory comes before what it holds
                    found += (os.path.join(top, entry) for entry in sorted(dirs) + sorted(files))
                for each in found:
                    archived(tar, each)
                    if buffer.tell() > MAX_ARCHIVE_BYTES:
                        return {"ok": True, "archive_b64": None}
    return {"ok": True, "archive_b64": base64.b64encode(buffer.getvalue()).decode()}


def archived(tar: tarfile.TarFile, path: str) -> None:
    """One entry of pack's archive, as it is (lstat); anything but a directory, a file or a link (a fifo, a socket) is
    no compile's output and left out."""
    st = os.lstat(path)
    info = tarfile.TarInfo(os.path.relpath(path, WORKDIR))
    info.mode, info.mtime = stat.S_IMODE(st.st_mode), st.st_mtime
    if stat.S_ISDIR(st.st_mode):
        info.type = tarfile.DIRTYPE
        tar.addfile(info)
    elif stat.S_ISLNK(st.st_mode):
        info.type, info.linkname = tarfile.SYMTYPE, os.readlink(path)
        tar.addfile(info)
    elif stat.S_ISREG(st.st_mode):
        info.size = st.st_size
        with open(path, "rb") as f:
            tar.addfile(info, f)


def unpack(archive_b64: str) -> dict:
    """pack's archive of a problem's build, as the host kept it, laid out over a workdir just reset: under the sides
    only, never through a link, the runner's own (the sandbox user's), with their modes (less setuid, setgid, sticky)
    and times."""
    directories = []
    with tarfile.open(fileobj=io.BytesIO(base64.b64decode(archive_b64, validate=True)), mode="r:") as tar:
        for member in tar:
            path = side_path(member.name)
            if path is None or os.path.realpath(os.path.dirname(path)) != os.path.dirname(path):
                return {"ok": False, "detail": f"{member.name!r} leaves the sides"}
            if member.isdir():
                if os.path.islink(path) or not os.path.isdir(path):
                    os.mkdir(path)      # FileExistsError where a link or a file is in its place
                directories.append((path, member))
                continue
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)     # the file the reset wrote (the tests' source), which the build's copy replaces
            if member.issym():
                os.symlink(member.linkname, path)
            elif member.isreg() and (source := tar.extractfile(member)) is not None:
                with open(path, "xb") as f:     # O_EXCL: never through a link
                    while chunk := source.read(1 << 20):
                        f.write(chunk)
                    os.fchmod(f.fileno(), member.mode & 0o777)
            else:
                return {"ok": False, "detail": f"{member.name!r} is neither a directory, a file nor a link"}
            os.utime(path, (member.mtime, member.mtime), follow_symlinks=False)
    for path, member in reversed(directories):     # once what they hold is written
        os.chmod(path, member.mode & 0o777)
        os.utime(path, (member.mtime, member.mtime))
    return {"ok": True, "workdir_bytes": workdir_bytes()}


def set_dumpable(dumpable: bool) -> None:
    if LIBC.prctl(PR_SET_DUMPABLE, int(dumpable), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE)")


class OomScore:
    """The runner's own oom_score_adj, opened while it is still dumpable: a step's process is forked while it is 1000,
    so that the program, not the runner, is what the OOM killer takes first (a process that is not dumpable may not
    open its own, and the child stays so until its exec), then it is set back."""

    PROGRAM = b"1000"

    def __init__(self) -> None:
        self.fd = os.open("/proc/self/oom_score_adj", os.O_RDWR | os.O_CLOEXEC)
        self.own = os.read(self.fd, 16).strip()

    @contextlib.contextmanager
    def program_first(self) -> Iterator[None]:
        os.write(self.fd, self.PROGRAM)
        try:
            yield
        finally:
            os.write(self.fd, self.own)     # always allowed: no value it had is below the floor it may set


def child_limits(job: dict) -> None:
    """Runs in the child before exec. The CPU limit's hard value is one second above the soft one, so SIGXCPU (not
    SIGKILL) marks it."""
    if job.get("address_space_bytes"):
        resource.setrlimit(resource.RLIMIT_AS, (int(job["address_space_bytes"]),) * 2)
    if job.get("cpu_rlimit_s"):
        resource.setrlimit(resource.RLIMIT_CPU, (int(job["cpu_rlimit_s"]), int(job["cpu_rlimit_s"]) + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (int(job["max_file_bytes"]), int(job["max_file_bytes"])))
    resource.setrlimit(resource.RLIMIT_NOFILE, (int(job["max_open_files"]), int(job["max_open_files"])))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def execute(job: dict, oom: OomScore) -> dict:
    """Run one step; every process it started dies with it (a limit, the output cap, or normal exit)."""
    wall_s = float(job["wall_s"])
    cap = int(job["max_output_bytes"])
    stdin = base64.b64decode(job.get("stdin_b64", ""))
    env = dict(job["env"])
    oom_before = oom_kills()
    budget = CpuBudget(float(job["cpu_budget_s"]))
    start = time.monotonic()
    try:
        with oom.program_first():
            proc = subprocess.Popen(
                job["argv"], cwd=WORKDIR, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, start_new_session=True,
                preexec_fn=lambda: child_limits(job),
            )
    except OSError as exc:  # as a shell would: the command cannot be run, exit status 127
        return {"ending": {"exit_code": 127}, "stdout_b64": "",
                "stderr_b64": base64.b64encode(f"cannot start {job['argv'][0]}: {exc}".encode()).decode(),
                "elapsed_s": 0.0}
    out, err, stopped = pump(proc, stdin, start + wall_s, cap, budget)
    if stopped == "wall":       # the job's wall time is the caller's deadline where that came first
        stopped = job.get("cut_by", "wall")
    kill_others()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = code = os.waitstatus_to_exitcode(status)
    reap()
    elapsed = round(time.monotonic() - start, 6)
    ending = {"stopped": stopped or None, "oom_killed": oom_kills() > oom_before >= 0,
              "exit_code": None if code < 0 else code, "signal": -code if code < 0 else None,
              "cpu_s": round(budget.used_s(), 6), "elapsed_s": elapsed, "peak_memory_bytes": usage.ru_maxrss * 1024}
    return {"ending": ending, "stdout_b64": base64.b64encode(bytes(out)).decode(),
            "stderr_b64": base64.b64encode(bytes(err)).decode(), "elapsed_s": elapsed,
            "workdir_bytes": workdir_bytes()}


def workdir_bytes() -> int:
    """What the workdir's tmpfs holds, which the container's memory limit is charged for."""
    fs = os.statvfs(WORKDIR)
    return (fs.f_blocks - fs.f_bfree) * fs.f_frsize


def pump(proc: subprocess.Popen, stdin: bytes, deadline: float, cap: int,
         budget: CpuBudget) -> tuple[bytearray, bytearray, str]:
    """Feed stdin and collect stdout/stderr until both close, the deadline passes, the CPU budget is spent or
    output exceeds cap."""
    sel = selectors.DefaultSelector()
    buffers = {proc.stdout: bytearray(), proc.stderr: bytearray()}
    for stream in buffers:
        os.set_blocking(stream.fileno(), False)
        sel.register(stream, selectors.EVENT_READ)
    pending = memoryview(stdin)
    if pending:
        os.set_blocking(proc.stdin.fileno(), False)
        sel.register(proc.stdin, selectors.EVENT_WRITE)
    else:
        proc.stdin.close()
    verdict = ""
    while sel.get_map():
        now = time.monotonic()
        remaining = deadline - now
        if remaining <= 0:
            verdict = "wall"
            break
        if budget.spent():
            verdict = "cpu"
            break
        # Wake up now and then: a straggler may hold the pipes open after the program itself exited.
        for key, _ in sel.select(max(0.0, min(remaining, POLL_S, budget.next_check - now))):
            if key.fileobj is proc.stdin:
                try:
                    written = os.write(proc.stdin.fileno(), pending[:65536])
                except BrokenPipeError:
                    written = len(pending)
                pending = pending[written:]
                if not pending:
                    sel.unregister(proc.stdin)
                    proc.stdin.close()
                continue
            chunk = os.read(key.fileobj.fileno(), 65536)
            if not chunk:
                sel.unregister(key.fileobj)
                continue
            buffers[key.fileobj] += chunk
            if len(buffers[proc.stdout]) + len(buffers[proc.stderr]) > cap:
                verdict = "output"
                break
        if verdict:
            break
        if not pending and exited(proc.pid):
            # The program is gone: like the end of a pid namespace, nothing it started outlives it
            # (a daemonized straggler holding the pipes would otherwise turn a finished run into a timeout).
            kill_others()
    sel.close()
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if not stream.closed:
            stream.close()
    out, err = buffers[proc.stdout], buffers[proc.stderr]
    return out[:cap], err[: max(0, cap - len(out))], verdict


def agnostics(job: dict, oom: OomScore) -> dict:
    """The Agnostics harness: compile once, then each test in order; the first failure decides."""
    language = baked_language()
    code = job["code"]
    ready = reset({language.source_name(code): code})
    if not ready["ok"]:
        return {"result": "fail:other", "stdout": "", "stderr": "", "details": ready["detail"]}
    timeout_s = float(job["timeout_s"])

    def perform(step: Step, stdin: str) -> tuple[RunStatus, dict, str, str]:
        ran = execute(runner_job(step, stdin.encode()), oom)
        stdout, stderr = (base64.b64decode(ran[key]) for key in ("stdout_b64", "stderr_b64"))
        status, _ = classify(step, Ending(**ran["ending"]), stderr)
        return status, ran["ending"], stdout.decode("utf-8", "replace"), stderr.decode("utf-8", "replace")

    build = compile_step(language, code)
    if build is not None:
        status, ending, stdout, stderr = perform(using(language, code, build), "")
        if status is not RunStatus.OK:
            return {"result": "fail:error", "stdout": stdout, "stderr": stderr, "exit_code": ending["exit_code"] or 1}
    run = running(language, run_step(language, code, Limits(timeout_s=timeout_s, memory_mb=language.memory_mb)))
    stderr = ""
    for case in job["test_cases"]:
        status, ending, stdout, stderr = perform(run, case["input"])
        if status is RunStatus.TIMEOUT:
            return {"result": "fail:timeout", "stdout": stdout, "stderr": stderr}
        if status is not RunStatus.OK:
            exit_code = ending["exit_code"]
            return {"result": "fail:error", "stdout": stdout, "stderr": stderr,
                    "exit_code": exit_code if exit_code is not None else 1}
        if stdout.rstrip() != case["output"].rstrip():
            return {"result": "fail:wrong-output", "expected": case["output"], "got": stdout, "stderr": stderr}
    return {"result": "success", "stderr": stderr}


def answer(line: bytes, oom: OomScore) -> dict:
    try:
        job = json.loads(line)
    except ValueError as exc:
        return {"error": f"not JSON: {exc}"}
    if not isinstance(job, dict):
        return {"error": "a job is a JSON object"}
    try:
        if "op" not in job and "code" in job:
            return agnostics(job, oom)
        if job.get("op") == "reset":
            return reset(job.get("files", {}))
        if job.get("op") == "exec":
            return execute(job, oom)
        if job.get("op") == "remove":
            return remove(job.get("names", []))
        if job.get("op") == "pack":
            return pack(list(job["paths"]))
        if job.get("op") == "unpack":
            return unpack(job["archive_b64"])
        if job.get("op") == "ping":
            return {"ok": True}
    except (KeyError, TypeError, ValueError, OSError, tarfile.TarError) as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {"error": f"unknown op {job.get('op')!r}"}


def main() -> None:
    oom = OomScore()
    set_dumpable(False)
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        if line.strip():
            out.write(json.dumps(answer(line, oom)).encode() + b"\n")
            out.flush()


if __name__ == "__main__":
    main()
