#!/usr/bin/python3
"""In-container sandbox runner: one JSON job per stdin line, one JSON answer line on stdout.

It lives as the main process of a long-lived warm container, so a program's run costs a fork
instead of a `docker run`. Two request shapes:

* ours: {"op": "reset", "files": {name: text}} wipes the workdir and /tmp, kills leftover
  processes and writes the files; {"op": "exec", "argv": [...], "stdin_b64": ..., "timeout_s": ...,
  "cpu_s": 0 | n, "max_output_bytes": ..., "max_file_bytes": ..., "max_open_files": ...,
  "address_space_bytes": 0 | n, "env": {...}} runs one step and answers {"status", "exit_code",
  "stdout_b64", "stderr_b64", "elapsed_s", "detail"}.
* the Agnostics verifier protocol: {"code", "timeout_s", "test_cases": [{"input", "output"}]} answers
  {"result": "success" | "fail:wrong-output" | "fail:error" | "fail:timeout" | "fail:other", ...}
  with that harness's rules (per-test timeout, first failure decides, rstrip equality), using the
  language baked into the image (/opt/sandbox/language.json, rendered by the project's languages.py).

Standard library only (plus languages.py, itself stdlib-only): it runs under the image's /usr/bin/python3.
"""

from __future__ import annotations

import base64
import contextlib
import json
import math
import os
import resource
import selectors
import shutil
import signal
import subprocess
import sys
import time

WORKDIR = "/sandbox"
SCRATCH = "/tmp"
LANGUAGE_FILE = "/opt/sandbox/language.json"
OOM_CONTROL = "/sys/fs/cgroup/memory/memory.oom_control"
# The process backend's environment, so that programs see the same one on both backends.
BASE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": SCRATCH, "TMPDIR": SCRATCH, "LANG": "C.UTF-8"}
POLL_S = 0.05
AGNOSTICS_OUTPUT_CAP = 8 << 20
AGNOSTICS_FILE_CAP = 64 << 20


def oom_kills() -> int:
    """The container cgroup's OOM-kill counter (cgroup v1); -1 where the kernel does not expose it."""
    try:
        with open(OOM_CONTROL) as f:
            for line in f:
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
    except OSError:
        pass
    return -1


def kill_others() -> None:
    """SIGKILL every process in the container but this one (stragglers of the previous job)."""
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) not in (me, 1):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(int(entry), signal.SIGKILL)


def reap() -> None:
    """Collect exited orphans: as the container's pid 1 the runner inherits them, and a zombie holds a pid."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def wipe(path: str) -> None:
    for entry in os.listdir(path):
        full = os.path.join(path, entry)
        if os.path.isdir(full) and not os.path.islink(full):
            shutil.rmtree(full, ignore_errors=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(full)


def reset(files: dict[str, str]) -> dict:
    kill_others()
    reap()
    wipe(WORKDIR)
    wipe(SCRATCH)
    for name, text in files.items():
        path = os.path.join(WORKDIR, name)
        if os.path.dirname(os.path.normpath(path)) != WORKDIR:
            return {"ok": False, "detail": f"file name {name!r} leaves the workdir"}
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return {"ok": True}


def child_limits(job: dict) -> None:
    """Runs in the child before exec: the program, not the runner, is what the OOM killer takes first."""
    for limit, key in ((resource.RLIMIT_AS, "address_space_bytes"), (resource.RLIMIT_CPU, "cpu_s")):
        if job.get(key):
            resource.setrlimit(limit, (int(job[key]), int(job[key])))
    resource.setrlimit(resource.RLIMIT_FSIZE, (int(job["max_file_bytes"]), int(job["max_file_bytes"])))
    resource.setrlimit(resource.RLIMIT_NOFILE, (int(job["max_open_files"]), int(job["max_open_files"])))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
    except OSError:
        pass


def execute(job: dict) -> dict:
    """Run one step; every process it started dies with it (timeout, output cap, or normal exit)."""
    timeout_s = float(job["timeout_s"])
    cap = int(job["max_output_bytes"])
    stdin = base64.b64decode(job.get("stdin_b64", ""))
    env = {**BASE_ENV, **job.get("env", {})}
    oom_before = oom_kills()
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            job["argv"], cwd=WORKDIR, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, start_new_session=True,
            preexec_fn=lambda: child_limits(job),
        )
    except OSError as exc:
        return {"status": "exit_nonzero", "exit_code": 127, "stdout_b64": "",
                "stderr_b64": base64.b64encode(str(exc).encode()).decode(), "elapsed_s": 0.0,
                "detail": f"cannot start {job['argv'][0]}: {exc}"}
    out, err, verdict = pump(proc, stdin, start + timeout_s, cap)
    kill_others()
    code = proc.wait()
    reap()
    elapsed = time.monotonic() - start
    status, detail = classify(verdict, code, oom_kills() > oom_before >= 0)
    return {"status": status, "exit_code": None if code < 0 else code,
            "stdout_b64": base64.b64encode(bytes(out)).decode(),
            "stderr_b64": base64.b64encode(bytes(err)).decode(),
            "elapsed_s": round(elapsed, 6), "detail": detail}


def pump(proc: subprocess.Popen, stdin: bytes, deadline: float, cap: int) -> tuple[bytearray, bytearray, str]:
    """Feed stdin and collect stdout/stderr until both close, the deadline passes or output exceeds cap."""
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
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            verdict = "timeout"
            break
        # Wake up now and then: a straggler may hold the pipes open after the program itself exited.
        for key, _ in sel.select(min(remaining, POLL_S)):
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
                verdict = "output_limit"
                break
        if verdict:
            break
        if proc.poll() is not None and not pending:
            # The program is gone: like the end of a pid namespace, nothing it started outlives it
            # (a daemonized straggler holding the pipes would otherwise turn a finished run into a timeout).
            kill_others()
    sel.close()
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if not stream.closed:
            stream.close()
    out, err = buffers[proc.stdout], buffers[proc.stderr]
    return out[:cap], err[: max(0, cap - len(out))], verdict


def classify(verdict: str, code: int, oom: bool) -> tuple[str, str]:
    if verdict == "timeout":
        return "timeout", "wall-clock limit"
    if verdict == "output_limit":
        return "output_limit", "output cap exceeded"
    if oom:
        return "memory_limit", "killed by the container's memory limit"
    if code == 0:
        return "ok", ""
    if code in (-signal.SIGXCPU, -signal.SIGKILL):
        return "timeout", "CPU-time limit"
    if code == -signal.SIGXFSZ:
        return "output_limit", "file-size limit"
    if code < 0:
        return "exit_nonzero", f"killed by signal {signal.Signals(-code).name}"
    return "exit_nonzero", ""


def baked_language():
    """The image's language: its table entry (language.json) read by the project's own languages.py."""
    sys.path.insert(0, os.path.dirname(LANGUAGE_FILE))
    from languages import Language

    with open(LANGUAGE_FILE) as f:
        spec = json.load(f)
    return Language(**{k: tuple(v) if isinstance(v, list) else v for k, v in spec.items()})


def agnostics(job: dict) -> dict:
    """The Agnostics harness: compile once, then each test in order; the first failure decides."""
    language = baked_language()
    code = job["code"]
    ready = reset({language.source_name(code): code})
    if not ready["ok"]:
        return {"result": "fail:other", "stdout": "", "stderr": "", "details": ready["detail"]}
    timeout_s = float(job["timeout_s"])

    def step(argv: list[str], stdin: str, limit_s: float) -> dict:
        return execute({"argv": argv, "stdin_b64": base64.b64encode(stdin.encode()).decode(),
                        "timeout_s": limit_s, "cpu_s": math.ceil(limit_s), "max_output_bytes": AGNOSTICS_OUTPUT_CAP,
                        "max_file_bytes": AGNOSTICS_FILE_CAP, "max_open_files": 256, "env": dict(language.env)})

    def text(answer: dict, key: str) -> str:
        return base64.b64decode(answer[key]).decode("utf-8", "replace")

    if language.compile is not None:
        built = step(language.render(language.compile, code, language.compile_memory_mb), "",
                     language.compile_timeout_s)
        if built["status"] != "ok":
            return {"result": "fail:error", "stdout": text(built, "stdout_b64"),
                    "stderr": text(built, "stderr_b64"), "exit_code": built["exit_code"] or 1}
    run = language.render(language.run, code, language.memory_mb)
    stderr = ""
    for case in job["test_cases"]:
        ran = step(run, case["input"], timeout_s)
        stdout, stderr = text(ran, "stdout_b64"), text(ran, "stderr_b64")
        if ran["status"] == "timeout":
            return {"result": "fail:timeout", "stdout": stdout, "stderr": stderr}
        if ran["status"] != "ok":
            return {"result": "fail:error", "stdout": stdout, "stderr": stderr,
                    "exit_code": ran["exit_code"] if ran["exit_code"] is not None else 1}
        if stdout.rstrip() != case["output"].rstrip():
            return {"result": "fail:wrong-output", "expected": case["output"], "got": stdout, "stderr": stderr}
    return {"result": "success", "stderr": stderr}


def answer(line: bytes) -> dict:
    try:
        job = json.loads(line)
    except ValueError as exc:
        return {"error": f"not JSON: {exc}"}
    if not isinstance(job, dict):
        return {"error": "a job is a JSON object"}
    try:
        if "op" not in job and "code" in job:
            return agnostics(job)
        if job.get("op") == "reset":
            return reset(job.get("files", {}))
        if job.get("op") == "exec":
            return execute(job)
        if job.get("op") == "ping":
            return {"ok": True}
    except (KeyError, TypeError, ValueError, OSError) as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {"error": f"unknown op {job.get('op')!r}"}


def main() -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        if line.strip():
            out.write(json.dumps(answer(line)).encode() + b"\n")
            out.flush()


if __name__ == "__main__":
    main()
