"""Python runs forked by their slot's zygote: nothing of one run reaches the next, the interpreter a program meets is
the one `python3 main.py` gives it, and a zygote that dies is replaced without the program being blamed.
(test_process_backend.py holds every limit and containment test on both paths; no timings are asserted.)"""

from __future__ import annotations

import ast
import asyncio
import os
import signal

import pytest

from sandboxes.backends.process.backend import ProcessBackend
from sandboxes.languages import Language, LanguageTable
from sandboxes.results import Limits, RunStatus
from tests.workspaces import run

LIMITS = Limits(timeout_s=5, memory_mb=256)

LEAVE_BEHIND = """
import builtins, os, subprocess, sys, typing, random
builtins.LEFT = 1
sys.modules["left_module"] = type(sys)("left_module")
typing.List = None
os.environ["LEFT"] = "1"
open("/dev/shm/left", "w").write("x")
open("/tmp/left", "w").write("x")
subprocess.Popen(["sleep", "1000"])
print(random.random())
"""
LOOK_FOR_IT = """
import builtins, os, sys, typing, random
print([hasattr(builtins, "LEFT"), "left_module" in sys.modules, typing.List is None, "LEFT" in os.environ,
       os.path.exists("/dev/shm/left"), os.path.exists("/tmp/left")])
print(sorted(p for p in os.listdir("/proc") if p.isdigit()))
print(random.random())
"""
WHAT_A_PROGRAM_MEETS = """
import os, sys
print(sorted(sys.modules))
print(sys.argv, sys.orig_argv, sys.path[0], __file__, __name__, sorted(globals()), os.getcwd(), os.getpid())
print(sorted(os.environ.items()), sys.flags, sys.stdin.isatty(), sys.stdout.line_buffering, sys.stdin.encoding)
import typing
print(sorted(sys.modules))
"""


# how a program ends, where the zygote emulates what the interpreter does (its finalisation, PyErr_Print)
ENDINGS = {
    "stdout closed": "import os\nprint('x')\nos.close(1)\n",
    "KeyboardInterrupt": "raise KeyboardInterrupt\n",
    "SIGINT": "import os, signal, time\nos.kill(os.getpid(), signal.SIGINT)\ntime.sleep(1)\n",
    "thread joined": "import threading, time\nthreading.Thread(target=lambda: (time.sleep(0.2), print(2))).start()\n",
    "atexit, exit status": "import atexit\natexit.register(print, 'bye')\nraise SystemExit(3)\n",
    "__del__ at exit": "class A:\n    def __del__(self):\n        print('deleted')\na = A()\nprint('end')\n",
    "exit with a message": "import sys\nsys.exit('message')\n",
    "exit 256": "import sys\nsys.exit(256)\n",
    "failing excepthook": "import sys\ndef h(*a):\n    raise ValueError(0)\nsys.excepthook = h\nraise KeyError(1)\n",
    "syntax error": "x = (\n",
    "NUL byte": "print(1)\x00 and then nothing\n",
    "coding cookie": "# -*- coding: latin-1 -*-\nprint('\xe9')\n",
    "file never closed": "out = open('/dev/stdout', 'w')\nout.write('buffered')\n",
    "multiprocessing": "import multiprocessing as mp\nif __name__ == '__main__':\n    with mp.Pool(2) as pool:\n"
                       "        print(pool.map(abs, [-1, -2]))\n",
}


@pytest.fixture(scope="module")
def python(table: LanguageTable) -> Language:
    return table.resolve("python")


def zygote_pid(backend: ProcessBackend, slot: int = 0) -> int:
    """The zygote's interpreter (the resident that is not the launcher nor bubblewrap)."""
    for pid in backend.slots()[slot].residents:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = f.read().split(b"\0")
        if b"/tmp/zygote.py" in argv[:3]:
            return pid
    raise AssertionError("no zygote in the slot")


@pytest.mark.asyncio
async def test_nothing_a_run_leaves_reaches_the_next_one(zygote_backend, python) -> None:
    left = await run(zygote_backend, python, LEAVE_BEHIND, LIMITS)
    assert left.status is RunStatus.OK, left
    assert zygote_backend.slots()[0].strangers == ()        # the process it left is gone with its pid namespace
    looked = await run(zygote_backend, python, LOOK_FOR_IT, LIMITS)
    assert looked.status is RunStatus.OK, looked
    found, pids, number = looked.stdout.decode().splitlines()
    assert ast.literal_eval(found) == [False] * 6
    assert ast.literal_eval(pids) == ["1", "2"]              # its init and itself
    assert number != left.stdout.decode().strip()            # random's seed is the run's own, never the zygote's


@pytest.mark.asyncio
async def test_a_program_meets_the_interpreter_a_fresh_process_gives_it(zygote_backend, spawn_backend,
                                                                       python) -> None:
    forked = await run(zygote_backend, python, WHAT_A_PROGRAM_MEETS, LIMITS)
    spawned = await run(spawn_backend, python, WHAT_A_PROGRAM_MEETS, LIMITS)
    assert forked.status is spawned.status is RunStatus.OK, (forked, spawned)
    assert forked.stdout == spawned.stdout


@pytest.mark.parametrize("name", sorted(ENDINGS))
@pytest.mark.asyncio
async def test_a_program_ends_as_it_does_in_a_fresh_process(zygote_backend, spawn_backend, python, name: str) -> None:
    forked, spawned = [await run(backend, python, ENDINGS[name], LIMITS) for backend in (zygote_backend, spawn_backend)]
    assert (forked.status, forked.exit_code, forked.detail, forked.stdout, forked.stderr) == (
        spawned.status, spawned.exit_code, spawned.detail, spawned.stdout, spawned.stderr)


@pytest.mark.asyncio
async def test_a_killed_zygote_is_replaced_and_the_next_candidate_passes(zygote_backend, python) -> None:
    assert (await run(zygote_backend, python, "print('warm')", LIMITS, slot=1)).stdout == b"warm\n"
    doomed = zygote_pid(zygote_backend, 1)
    os.kill(doomed, signal.SIGKILL)
    result = await run(zygote_backend, python, "print('fine')", LIMITS, slot=1)
    assert (result.status, result.stdout) == (RunStatus.OK, b"fine\n"), result
    assert zygote_pid(zygote_backend, 1) != doomed


@pytest.mark.asyncio
async def test_a_zygote_that_dies_under_a_run_is_replaced_and_the_run_goes_again(zygote_backend, python) -> None:
    await run(zygote_backend, python, "print('warm')", LIMITS, slot=2)
    doomed = zygote_pid(zygote_backend, 2)
    source = "import sys, time\nprint('attempt', sys.stdin.read())\ntime.sleep(1)\nprint('done')"
    pending = asyncio.ensure_future(run(zygote_backend, python, source, LIMITS, b"1", slot=2))
    while not zygote_backend.slots()[2].strangers:           # the run has started
        await asyncio.sleep(0.01)
    os.kill(doomed, signal.SIGKILL)
    result = await pending
    assert (result.status, result.stdout) == (RunStatus.OK, b"attempt 1\ndone\n"), result
    assert zygote_pid(zygote_backend, 2) != doomed


SIBLING = "print('the sibling answer 4f1c9e')\n"
# Its own memory, every readable mapping, searched for the sibling's text: the two halves are separate objects here,
# never side by side, so a match is a copy of the sibling's source.
READS_ITS_MEMORY = """
halves = (b"the sibling ans", b"wer 4f1c9e")
found = 0
with open("/proc/self/maps") as maps, open("/proc/self/mem", "rb", 0) as mem:
    for line in list(maps):
        addresses, perms = line.split()[:2]
        if not perms.startswith("r") or "[v" in line:
            continue
        start, end = (int(x, 16) for x in addresses.split("-"))
        try:
            mem.seek(start)
            chunk = mem.read(end - start)
        except (OSError, ValueError, OverflowError):
            continue
        at = chunk.find(halves[0])
        while at >= 0:
            found += chunk.startswith(halves[1], at + len(halves[0]))
            at = chunk.find(halves[0], at + 1)
print(found)
"""


@pytest.mark.asyncio
async def test_no_program_s_source_reaches_its_slot_s_later_runs(zygote_backend, python) -> None:
    """The zygote never reads a program: a forked run holds a copy
    of the zygote's memory, where an earlier candidate of the slot (a sibling of the same prompt) would be found."""
    for stdin in (b"1", b"2"):      # run twice, as a program of several tests is
        ran = await run(zygote_backend, python, SIBLING, LIMITS, stdin, slot=1)
        assert ran.stdout == b"the sibling answer 4f1c9e\n", ran
    scan = await run(zygote_backend, python, READS_ITS_MEMORY, LIMITS, slot=1)
    assert (scan.status, scan.stdout) == (RunStatus.OK, b"0\n"), scan


@pytest.mark.asyncio
async def test_a_source_runs_the_same_every_time(zygote_backend, python) -> None:
    source = "import sys\nprint(sys.stdin.read(), __file__)\nif 1 is 1: pass\n"     # a compile that warns
    results = [await run(zygote_backend, python, source, LIMITS, str(i).encode()) for i in range(3)]
    assert [r.stdout for r in results] == [f"{i} /sandbox/main.py\n".encode() for i in range(3)]
    assert all(b"SyntaxWarning" in r.stderr for r in results), results
    quiet = "import sys\nraise SystemExit(sys.stdin.read())\n"
    results = [await run(zygote_backend, python, quiet, LIMITS, str(i).encode()) for i in range(3)]
    assert [(r.exit_code, r.stderr) for r in results] == [(1, f"{i}\n".encode()) for i in range(3)]
