"""The process backend's limits and isolation, each provoked by a real hostile program."""

from __future__ import annotations

import ast
import asyncio
import contextlib
import os
import pathlib
import shutil
import subprocess
import sys
import time

import pytest

from sandboxes.backend import SandboxError
from sandboxes.backends.process import cgroup_v1, cgroup_v2
from sandboxes.backends.process.backend import FIXED_PATH, ProcessBackend
from sandboxes.backends.process.instances import reap_dead_instances
from sandboxes.backends.process.limits import LimitsError
from sandboxes.languages import LanguageTable, language_from_entry
from sandboxes.results import Limits, RunResult, RunStatus
from tests.language_table import load_table
from tests.sandboxes.conftest import ready
from tests.toolchains import hosted
from tests.workspaces import compile_and_run, run

LIMITS = Limits(timeout_s=3, memory_mb=256, max_output_bytes=1 << 20, max_file_bytes=16 << 20)


@pytest.fixture
def backend(python_backend: ProcessBackend) -> ProcessBackend:
    """Every test here on both paths a Python run takes: forked by its slot's zygote, and spawned."""
    return python_backend


async def run_python(backend: ProcessBackend, table: LanguageTable, source: str, limits: Limits = LIMITS,
                     slot: int = 0, stdin: bytes = b"", deadline: float | None = None) -> RunResult:
    return await run(backend, table.resolve("python"), source, limits, stdin, slot=slot, deadline=deadline)


def assert_slot_empty(backend: ProcessBackend, slot: int) -> None:
    """Nothing of a run is left: the slot holds its residents (its zygotes' processes) only, none when spawning."""
    state = backend.slots()[slot]
    assert sorted(state.processes) == sorted(state.residents)
    assert state.tasks == len(state.residents)


@pytest.mark.asyncio
async def test_stdin_stdout_stderr_and_exit_code(backend, table) -> None:
    result = await run_python(backend, table, "import sys\ndata = sys.stdin.read()\nprint(data.upper())\n"
                              "print('err', file=sys.stderr)\nsys.exit(7)", stdin=b"abc")
    assert (result.status, result.exit_code) == (RunStatus.EXIT_NONZERO, 7)
    assert (result.stdout, result.stderr) == (b"ABC\n", b"err\n")


@pytest.mark.asyncio
async def test_programs_can_reopen_their_std_streams(backend, table) -> None:
    source = "data = open('/dev/stdin').read()\nopen('/dev/stdout', 'w').write(data * 2)"
    result = await run_python(backend, table, source, stdin=b"ab")
    assert (result.status, result.stdout) == (RunStatus.OK, b"abab"), result
    javascript = ready(table, backend, "javascript")
    async with backend.workspace(javascript, "console.log(require('fs').readFileSync('/dev/stdin', 'utf8'))",
                                 0) as workspace:
        result = await workspace.run(b"js", LIMITS, None)
    assert (result.status, result.stdout) == (RunStatus.OK, b"js\n"), result


@pytest.mark.asyncio
async def test_devices_and_posix_semaphores_work(backend, table) -> None:
    source = ("import multiprocessing, os\nlock = multiprocessing.Lock()\nwith lock:\n"
              "    print(len(open('/dev/urandom', 'rb').read(8)), open('/dev/zero', 'rb').read(2))\n"
              "open('/dev/null', 'w').write('gone')\nprint(sorted(os.listdir('/dev')))")
    result = await run_python(backend, table, source)
    assert result.status is RunStatus.OK, result
    assert result.stdout.splitlines()[0] == b"8 b'\\x00\\x00'"
    assert b"'shm'" in result.stdout and b"'sda'" not in result.stdout


@pytest.mark.asyncio
async def test_infinite_loop_times_out(backend, table) -> None:
    result = await run_python(backend, table, "while True: pass", Limits(timeout_s=1, memory_mb=256))
    assert (result.status, result.detail) == (RunStatus.TIMEOUT, "CPU-time limit")
    assert result.cpu_s >= 0.95     # stopped once it had used its limit (the kernel checks RLIMIT_CPU at its tick)
    assert_slot_empty(backend, 0)


@pytest.mark.asyncio
async def test_a_program_that_closes_its_outputs_is_still_stopped(backend, table) -> None:
    source = "import os\nos.close(1)\nos.close(2)\nwhile True: pass"
    result = await run_python(backend, table, source, Limits(timeout_s=1, memory_mb=256))
    assert (result.status, result.detail) == (RunStatus.TIMEOUT, "CPU-time limit")
    assert_slot_empty(backend, 0)


@pytest.mark.asyncio
async def test_sleeping_forever_times_out_on_the_wall_clock_backstop(backend, table) -> None:
    result = await run_python(backend, table, "import time\ntime.sleep(10**6)", Limits(timeout_s=1, memory_mb=256))
    assert (result.status, result.detail) == (RunStatus.TIMEOUT, "wall-clock backstop (4 s = 3 x the timeout + 1 s)")
    assert result.elapsed_s >= 4 and result.cpu_s < 1


@pytest.mark.asyncio
async def test_rlimits_are_set(backend, table) -> None:
    limits = Limits(timeout_s=2.5, memory_mb=256, max_processes=40, max_file_bytes=1 << 20, max_open_files=100)
    result = await run_python(backend, table, "print(open('/proc/self/limits').read())", limits)
    rows = {line[:26].strip(): line[26:].split()[:2] for line in result.stdout.decode().splitlines()[1:] if line}
    assert rows["Max cpu time"] == ["3", "4"]  # SIGXCPU first, SIGKILL a second later
    assert rows["Max file size"] == [str(1 << 20)] * 2
    assert rows["Max open files"] == ["100", "100"]
    assert rows["Max processes"] == ["43", "43"]  # the program's 40, plus launcher, bwrap and bwrap's init
    assert rows["Max address space"] == [str((256 * 4 + 1024) << 20)] * 2  # python: RLIMIT_AS is safe
    assert rows["Max core file size"] == ["0", "0"]


@pytest.mark.asyncio
async def test_cpu_time_limit_is_a_timeout(backend, table) -> None:
    # the program tightens its own CPU limit to 1 s, far inside the 20 s wall clock: only RLIMIT_CPU ends it
    source = "import resource\nresource.setrlimit(resource.RLIMIT_CPU, (1, 2))\nwhile True: pass"
    result = await run_python(backend, table, source, Limits(timeout_s=20, memory_mb=256))
    assert (result.status, result.detail) == (RunStatus.TIMEOUT, "CPU-time limit")
    assert_slot_empty(backend, 0)


@pytest.mark.parametrize("signal_name", ["SIGKILL", "SIGTERM", "SIGSEGV"])
@pytest.mark.asyncio
async def test_a_program_that_signals_itself_dies(backend, table, signal_name: str) -> None:
    source = f"import os, signal\nos.kill(os.getpid(), signal.{signal_name})\nprint('survived')"
    result = await run_python(backend, table, source)
    assert (result.status, result.stdout) == (RunStatus.EXIT_NONZERO, b""), result
    assert result.detail == f"killed by {signal_name}"


@pytest.mark.asyncio
async def test_python_memory_bomb_is_a_memory_limit(backend, table) -> None:
    result = await run_python(backend, table, "x = []\nwhile True: x.append(bytearray(8 << 20))")
    assert result.status is RunStatus.MEMORY_LIMIT, result
    result = await run_python(backend, table, "x = bytearray(1 << 40)")  # past RLIMIT_AS: MemoryError
    assert result.status is RunStatus.MEMORY_LIMIT, result


@pytest.mark.asyncio
async def test_files_in_tmp_count_against_memory(backend, table) -> None:
    source = "for i in range(64):\n    open(f'/tmp/f{i}', 'wb').write(b'x' * (8 << 20))"
    result = await run_python(backend, table, source)
    assert result.status is RunStatus.MEMORY_LIMIT, result


@pytest.mark.asyncio
async def test_cpp_memory_bomb_is_a_memory_limit(backend, table) -> None:
    source = "#include <cstring>\n#include <vector>\nint main() { std::vector<char*> v;\n" \
             "  for (;;) { char* p = new char[1 << 24]; std::memset(p, 1, 1 << 24); v.push_back(p); } }\n"
    compiled, result = await compile_and_run(backend, ready(table, backend, "cpp"), source, LIMITS, slot=1)
    assert compiled.status is RunStatus.OK and result.status is RunStatus.MEMORY_LIMIT, result


@pytest.mark.asyncio
async def test_java_memory_bomb_is_a_memory_limit(backend, table) -> None:
    source = "import java.util.*;\npublic class Main { public static void main(String[] a) {\n" \
             "  List<long[]> keep = new ArrayList<>(); while (true) keep.add(new long[1 << 20]); } }\n"
    compiled, result = await compile_and_run(backend, ready(table, backend, "java"), source, LIMITS, slot=1)
    assert compiled.status is RunStatus.OK and result.status is RunStatus.MEMORY_LIMIT, result


@pytest.mark.asyncio
async def test_output_flood_is_an_output_limit_and_keeps_the_cap(backend, table) -> None:
    result = await run_python(backend, table, "while True: print('x' * 4096)")
    assert result.status is RunStatus.OUTPUT_LIMIT
    assert len(result.stdout) == LIMITS.max_output_bytes
    result = await run_python(backend, table, "import sys\nwhile True: sys.stderr.write('y' * 4096)")
    assert result.status is RunStatus.OUTPUT_LIMIT and len(result.stderr) == LIMITS.max_output_bytes


@pytest.mark.asyncio
async def test_huge_file_write_is_an_output_limit(backend, table) -> None:
    result = await run_python(backend, table, "open('big', 'wb').write(b'x' * (64 << 20))")
    assert result.status is RunStatus.OUTPUT_LIMIT, result
    result = await run_python(backend, table, "import subprocess\n"
                              "subprocess.run(['head', '-c', str(64 << 20), '/dev/zero'], stdout=open('/tmp/z', 'wb'))"
                              "\nraise SystemExit(1)")
    assert result.status is RunStatus.OUTPUT_LIMIT, result


@pytest.mark.asyncio
async def test_fork_bomb_is_contained_and_the_slot_comes_back_clean(backend, table) -> None:
    bomb = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass"
    result = await run_python(backend, table, bomb, Limits(timeout_s=2, memory_mb=256, max_processes=32))
    assert result.status is RunStatus.TIMEOUT
    assert_slot_empty(backend, 0)
    state = backend.slots()[0]
    assert sorted(_processes_of(state.uid)) == sorted(str(pid) for pid in state.residents)
    after = await run_python(backend, table, "print('fine')")
    assert (after.status, after.stdout) == (RunStatus.OK, b"fine\n")


@pytest.mark.asyncio
async def test_process_limit_stops_forks(backend, table) -> None:
    source = "import os\nn = 0\ntry:\n    while True:\n        if os.fork() == 0:\n            import time\n" \
             "            time.sleep(30)\n        n += 1\nexcept OSError:\n    print(n)"
    result = await run_python(backend, table, source, Limits(timeout_s=5, memory_mb=256, max_processes=16))
    assert result.status is RunStatus.OK, result
    assert 8 <= int(result.stdout) < 16
    assert_slot_empty(backend, 0)


@pytest.mark.asyncio
async def test_no_network(backend, table) -> None:
    source = "import socket\ns = socket.socket()\ns.settimeout(2)\ns.connect(('1.1.1.1', 80))"
    result = await run_python(backend, table, source)
    assert result.status is RunStatus.EXIT_NONZERO and b"unreachable" in result.stderr
    result = await run_python(backend, table, "import socket\nprint(socket.if_nameindex())")
    assert result.stdout == b"[(1, 'lo')]\n"


@pytest.mark.asyncio
async def test_system_is_read_only_and_host_paths_are_invisible(backend, table) -> None:
    for path in ("/usr/evil", "/etc/evil", "/bin/evil", "/evil", "../evil", "/dev/evil", "/proc/sys/kernel/evil"):
        result = await run_python(backend, table, f"open({path!r}, 'w')")
        assert result.status is RunStatus.EXIT_NONZERO and result.stderr.strip(), path
    here = pathlib.Path(__file__).resolve()
    for path in (str(here), "/root", "/home", "/work", str(backend.slots()[0].workspaces)):
        result = await run_python(backend, table, f"import os\nprint(os.path.exists({path!r}))")
        assert result.stdout == b"False\n", path
    result = await run_python(backend, table, "import os\nprint(os.getuid(), os.getcwd(), sorted(os.listdir('/')))")
    assert result.stdout.startswith(f"{backend.slots()[0].uid} /sandbox ".encode())
    assert b"work" not in result.stdout and b"root" not in result.stdout


@pytest.mark.asyncio
async def test_no_capabilities_no_privileges(backend, table) -> None:
    source = "print(open('/proc/self/status').read())"
    result = await run_python(backend, table, source)
    status = dict(line.split(":\t", 1) for line in result.stdout.decode().splitlines() if ":\t" in line)
    assert status["CapEff"].strip() == status["CapPrm"].strip() == status["CapBnd"].strip() == "0" * 16
    assert status["NoNewPrivs"].strip() == "1"
    result = await run_python(backend, table, "import os\nos.setuid(0)")
    assert result.status is RunStatus.EXIT_NONZERO


@pytest.mark.asyncio
async def test_one_workspace_cannot_see_another(backend, table) -> None:
    python = table.resolve("python")
    async with backend.workspace(python, "SECRET = 42\n", 0):
        other = next(backend.slots()[0].workspaces.iterdir())
        secret = other / "box" / "main.py"
        assert secret.exists()
        spy = f"import os\nprint(os.path.exists({str(secret)!r}))\nprint(sorted(os.listdir('/proc')))"
        async with backend.workspace(python, spy, 1) as workspace:
            result = await workspace.run(b"", LIMITS, None)
    lines = result.stdout.decode().splitlines()
    assert lines[0] == "False", result
    assert [p for p in ast.literal_eval(lines[1]) if p.isdigit()] == ["1", "2"]  # bwrap's init and itself


@pytest.mark.asyncio
async def test_workspace_files_persist_between_runs_and_vanish_after(backend, table) -> None:
    python = table.resolve("python")
    source = "import os\nprint(os.path.exists('state'))\nopen('state', 'w').write('x')"
    async with backend.workspace(python, source, 2) as workspace:
        first = await workspace.run(b"", LIMITS, None)
        second = await workspace.run(b"", LIMITS, None)
        path = workspace.path
    assert (first.stdout, second.stdout) == (b"False\n", b"True\n")
    assert not path.exists()


@pytest.mark.asyncio
async def test_deadline_cuts_the_run(backend, table) -> None:
    loop = asyncio.get_running_loop()
    result = await run_python(backend, table, "import time\ntime.sleep(60)", Limits(timeout_s=30, memory_mb=256),
                              deadline=loop.time() + 0.5)
    assert result.status is RunStatus.DEADLINE and result.elapsed_s < 10
    result = await run_python(backend, table, "print(1)", deadline=loop.time() - 1)
    assert result.status is RunStatus.DEADLINE and result.stdout == b""
    assert_slot_empty(backend, 0)


@pytest.mark.asyncio
async def test_cancelled_run_leaves_nothing_behind(backend, table) -> None:
    task = asyncio.create_task(run_python(backend, table, "import time\ntime.sleep(60)"))
    await asyncio.sleep(0.5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0.2)
    assert_slot_empty(backend, 0)


@pytest.mark.parametrize("key, source", [
    ("cpp", "int main() { return undefined_name; }"),
    ("java", "public class Main { public static void main(String[] a) { int x = \"s\"; } }"),
    ("rust", "fn main() { let x: i32 = \"s\"; }"),
])
@pytest.mark.asyncio
async def test_compile_errors(backend, table, key: str, source: str) -> None:
    compiled, result = await compile_and_run(backend, ready(table, backend, key), source, LIMITS, slot=1)
    assert compiled.status is RunStatus.EXIT_NONZERO and compiled.stderr and result is None


@pytest.mark.asyncio
async def test_csharp_failed_assert_is_a_failure_even_with_exit_code_0(backend, table) -> None:
    source = "using System.Diagnostics;\nclass P { static void Main() { Debug.Assert(1 == 2); } }"
    _, result = await compile_and_run(backend, ready(table, backend, "csharp"), source, LIMITS, slot=1)
    assert result.exit_code == 0 and result.status is RunStatus.EXIT_NONZERO, result


@pytest.mark.asyncio
async def test_missing_program_is_a_sandbox_error_not_the_programs_fault(backend, table) -> None:
    broken = language_from_entry("broken", {"source_file": "main.txt", "run": ["/nonexistent/interpreter", "{source}"],
                                            "version": ["/nonexistent/interpreter", "--version"], "packages": []})
    info = backend.describe(broken)
    assert not info.ready and "/nonexistent/interpreter" in info.reason
    async with backend.workspace(broken, "text", 0) as workspace:
        result = await workspace.run(b"", LIMITS, None)
    assert result.status is RunStatus.SANDBOX_ERROR and result.exit_code is None


def test_a_missing_path_named_by_the_commands_is_not_ready(backend) -> None:
    language = language_from_entry("needs-types", {
        "source_file": "main.py", "run": ["/usr/bin/python3", "-X", "{source}"], "packages": [],
        "compile": ["/usr/bin/python3", "--root", "/nonexistent/types:/usr"],
        "version": ["/usr/bin/python3", "--version"]})
    info = backend.describe(language)
    assert not info.ready and "/nonexistent/types" in info.reason


@pytest.mark.asyncio
async def test_program_cannot_forge_a_sandbox_error(backend, table) -> None:
    source = "import sys\nsys.stderr.write('bwrap: Can\\'t find source path /x: No such file or directory\\n')\n" \
             "sys.exit(1)"
    result = await run_python(backend, table, source)
    assert result.status is RunStatus.EXIT_NONZERO


@pytest.mark.parametrize("key", sorted({language.key for language in load_table()} - hosted()))
def test_missing_toolchain_is_reported_not_ready(backend, table, key: str) -> None:
    """Each language the host setup installs no toolchain of is reported not ready, naming what is missing."""
    language = table.resolve(key)
    if shutil.which(language.version[0], path=FIXED_PATH):
        pytest.skip(f"{key} is installed here")
    info = backend.describe(language)
    assert not info.ready and language.version[0] in info.reason


@pytest.mark.asyncio
async def test_busy_slot_and_bad_slot_are_refused(backend, table) -> None:
    python = table.resolve("python")
    async with backend.workspace(python, "", 0):
        with pytest.raises(SandboxError):
            async with backend.workspace(python, "", 0):
                pass
    with pytest.raises(SandboxError):
        async with backend.workspace(python, "", 99):
            pass


def _owner(pid: str) -> int | None:
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except FileNotFoundError:
        return None


DOOMED_SERVER = """
import asyncio, sys
from sandboxes.backends.process.backend import ProcessBackend
from sandboxes.languages import LanguageTable
from sandboxes.results import Limits

async def main():
    backend = ProcessBackend()
    await backend.start(1)
    async with backend.workspace(LanguageTable.load().resolve("python"), "import time\\ntime.sleep(600)", 0) as ws:
        slot = backend.slots()[0]
        print(slot.workspaces, slot.uid, flush=True)
        await ws.run(b"", Limits(timeout_s=600, memory_mb=256), None)

asyncio.run(main())
"""


def test_a_killed_server_takes_its_sandboxes_along_and_the_next_start_cleans_up(tmp_path) -> None:
    if os.geteuid() != 0:
        pytest.skip("the process backend needs root")
    server = subprocess.Popen([sys.executable, "-c", DOOMED_SERVER], stdout=subprocess.PIPE, text=True,
                              cwd=pathlib.Path(__file__).resolve().parents[2])
    try:
        workspaces, uid = server.stdout.readline().split()
        workspaces, uid = pathlib.Path(workspaces), int(uid)
        deadline = time.monotonic() + 30
        while not (sandboxed := _processes_of(uid)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert sandboxed, "the sandboxed program never started"
        assert os.path.ismount(workspaces)
    finally:
        server.kill()
        server.wait()
    deadline = time.monotonic() + 10
    while any(os.path.exists(f"/proc/{pid}") for pid in sandboxed) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [pid for pid in sandboxed if os.path.exists(f"/proc/{pid}")] == []
    reap_dead_instances()
    instance = workspaces.parent
    assert not instance.exists() and not pathlib.Path(f"{instance}.lock").exists()
    assert not _instance_groups(instance.name)


def _instance_groups(name: str) -> list[pathlib.Path]:
    """The cgroups named after an instance, in whichever hierarchy this host has."""
    found = []
    for controller in cgroup_v1.CONTROLLERS:
        with contextlib.suppress(LimitsError):
            found.append(cgroup_v1.own_group(controller) / name)
    with contextlib.suppress(LimitsError):
        found.append(cgroup_v2.base_group() / name)
    return [path for path in found if path.exists()]


def _processes_of(uid: int) -> list[str]:
    return [p for p in os.listdir("/proc") if p.isdigit() and _owner(p) == uid]


@pytest.mark.asyncio
async def test_slots_run_concurrently_without_mixing_up_results(backend, table) -> None:
    python = table.resolve("python")

    async def candidate(slot: int) -> list[bytes]:
        source = f"import sys\nprint({slot}, sys.stdin.read())"
        async with backend.workspace(python, source, slot) as workspace:
            return [(await workspace.run(str(i).encode(), LIMITS, None)).stdout for i in range(5)]

    outputs = await asyncio.gather(*(candidate(slot) for slot in range(len(backend.slots()))))
    for slot, stdouts in enumerate(outputs):
        assert stdouts == [f"{slot} {i}\n".encode() for i in range(5)]
