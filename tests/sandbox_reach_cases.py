"""What a program can do to the sandbox's own processes (issue 28): its init (a spawned run's `launcher --reap`, a
zygote run's run_init), its parent (the docker runner) and whatever else of ours it can see: nothing. Each attack comes
on top of a wrong answer and must get that answer's verdict, never INFRA (a sandbox death twice, which training masks),
and the honest programs after it pass. Run through a real server here (tests/test_sandbox_reach.py) and, as a script, as
`nobody`:

    python -m tests.sandbox_reach_cases -- SERVE_ARGS...

prints one JSON object: per case its verdict and detail, and how many steps went again after a sandbox death.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import pathlib
import sys
from collections.abc import Collection

from reward_server.client import RewardClient
from reward_server.loadtest.scrape import scrape, total
from reward_server.pb import reward_pb2
from tests import nobody
from tests.candidates import function_style, stdio, verdict_name
from tests.limits_cases import ECHO
from tests.sandbox_killers import humaneval_batch

# What the program tries on every other process it sees (the sandbox's init, and the runner on docker): each line of
# its output says "denied" where the kernel refused every target, anything else where some target let it through.
# ptrace's PTRACE_O_EXITKILL would SIGKILL the tracee at the tracer's exit, a signal even a pid namespace's init takes.
REACH = r'''
import ctypes, errno, os, signal

libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
libc.ptrace.restype = ctypes.c_long
libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
PTRACE_ATTACH, PTRACE_SEIZE, PTRACE_O_EXITKILL, PR_GET_DUMPABLE = 16, 0x4206, 0x100000, 3
FORGED = b'{"exec-error": "forged"}\n{"wait-status": 0}\n{"exit-code": 0}\n'


class IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("length", ctypes.c_size_t)]


def checked(result):
    if result < 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))


def outcome(attempt):
    try:
        attempt()
    except OSError as e:
        return "denied" if e.errno in (errno.EPERM, errno.EACCES) else errno.errorcode.get(e.errno, str(e.errno))
    return "REACHED"


def vm_read(pid):
    buffer = ctypes.create_string_buffer(8)
    local, remote = IoVec(ctypes.addressof(buffer), 8), IoVec(0x400000, 8)
    checked(libc.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0))


def write_fd(pid, fd):
    written = os.open(f"/proc/{pid}/fd/{fd}", os.O_WRONLY | os.O_NONBLOCK)
    try:
        os.write(written, FORGED)
    finally:
        os.close(written)


def tried(pid):
    fds = {outcome(lambda fd=fd: write_fd(pid, fd)) for fd in range(16)} - {"ENOENT"}
    return {
        "ptrace seize": outcome(lambda: checked(libc.ptrace(PTRACE_SEIZE, pid, None, PTRACE_O_EXITKILL))),
        "ptrace attach": outcome(lambda: checked(libc.ptrace(PTRACE_ATTACH, pid, None, None))),
        "process_vm_readv": outcome(lambda: vm_read(pid)),
        "mem": outcome(lambda: open(f"/proc/{pid}/mem", "rb").close()),
        "environ": outcome(lambda: open(f"/proc/{pid}/environ", "rb").read()),
        "fd list": outcome(lambda: os.listdir(f"/proc/{pid}/fd")),
        "fd writes": "denied" if fds == {"denied"} else " ".join(sorted(fds)),
    }


def reach():
    others = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]
    found = {}
    for pid in others:
        for what, result in tried(pid).items():
            found.setdefault(what, set()).add(result if result == "denied" else f"{result} in {pid}")
    return {what: " ".join(sorted(results)) for what, results in found.items()}, others
'''

VECTORS = ("ptrace seize", "ptrace attach", "process_vm_readv", "mem", "environ", "fd list", "fd writes")

# Looks and reports: it passes only where every vector was denied, it still sees its init, and its own /proc/self
# works as a fresh process's (dumpable: its exec made it so, or the zygote set it back).
PROBE = REACH + r'''
found, others = reach()
os.kill(1, signal.SIGKILL)      # an init's own namespace cannot kill it: we are still here to print
for what in sorted(found):
    print(what, found[what])
print("sees", "init" if 1 in others else others)
for name in ("status", "environ", "cmdline", "mem", "fd"):
    path = f"/proc/self/{name}"
    os.listdir(path) if name == "fd" else open(path, "rb").close()
print("self readable, dumpable", libc.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0))
'''
PROBE_EXPECTED = "".join(f"{what} denied\n" for what in sorted(VECTORS)) + "sees init\nself readable, dumpable 1\n"

WRONG = "print('wrong', flush=True)\n"
SEIZE = REACH + "for pid in reach()[1]:\n    libc.ptrace(PTRACE_SEIZE, pid, None, PTRACE_O_EXITKILL)\n"
# Each attack, on top of a wrong answer.
ATTACKS = {
    "ptrace seize with exit-kill": WRONG + SEIZE,
    "forged report": WRONG + REACH + "for pid in reach()[1]:\n    for fd in range(16):\n"
                     "        outcome(lambda: write_fd(pid, fd))\n",
    "kill -9 of pid 1": WRONG + "import os, signal\nos.kill(1, signal.SIGKILL)\n",
}
FUNCTION_WRONG = "    return None\n"
# Its first test leaves a process that forks a child and exits, again and again (one pass over /proc that kills what it
# lists misses the newest), its second looks for it from the next run in the same workspace.
STRAGGLER = """import os, sys, time
if sys.stdin.read() == "spawn":
    if os.fork() == 0:
        for fd in (0, 1, 2):
            os.close(fd)
        while os.fork() == 0:
            pass
        os._exit(0)
    print("spawned")
else:
    time.sleep(0.2)
    others = sorted(int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, os.getpid()))
    print("alone" if not others else f"not alone: {others}")
"""

HUMANEVAL_COUNT = 8     # HumanEval's first canonical programs, after the attacks
LOG_KEPT = 8000         # characters of the server's log a report keeps: its start (what it chose) and its end


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    candidate: reward_pb2.Candidate
    expected: str       # the verdict's name


def humaneval(count: int = HUMANEVAL_COUNT) -> list[Case]:
    return [Case(f"honest {c.id}", c, "PASS") for c in humaneval_batch()[:count]]


def cases(languages: Collection[str] | None = None) -> list[Case]:
    """The probe, each attack with a wrong answer, then honest programs: a Python and a HumanEval attack in function
    style (its own wrong return, the attack at import), the echo of each language, HumanEval's first canonical ones;
    those of `languages` only, if given."""
    attack_rows = [Case(f"attack: {name}", stdio(name, "python", code, [("", "right\n")]), "WRONG_ANSWER")
                   for name, code in ATTACKS.items()]
    code = humaneval(1)[0].candidate.code
    function_rows = [Case(name, function_style(name, "python", code.prompt, completion, code.tests), "RUNTIME_ERROR")
                     for name, completion in (("wrong function style", FUNCTION_WRONG),
                                              ("attack: function style", FUNCTION_WRONG + SEIZE))]
    straggler = stdio("straggler", "python", STRAGGLER, [("spawn", "spawned\n"), ("look", "alone\n")],
                      run_all_tests=True)
    found = [
        Case("probe", stdio("probe", "python", PROBE, [("", PROBE_EXPECTED)]), "PASS"),
        *attack_rows,
        *function_rows,
        Case("a forking straggler outlives no run", straggler, "PASS"),
        *(Case(f"honest {language} echo", stdio(language, language, source, [("hi", "hi")]), "PASS")
          for language, source in ECHO.items()),
        *humaneval(),
    ]
    return [case for case in found if languages is None or case.candidate.code.language in languages]


def score(client: RewardClient) -> dict[str, dict]:
    """Every case, one at a time (an attack must not share its slot's moment with the next case)."""
    results = {}
    for case in cases():
        [result] = client.score([case.candidate], timeout_s=300)
        results[case.name] = {"verdict": verdict_name(result), "detail": result.detail}
    return results


def problems(report: dict[str, dict], languages: Collection[str] | None = None) -> list[str]:
    """What in a report of the cases (of `languages`) breaks the rule (empty: none)."""
    return [f"{case.name}: {report[case.name]['verdict']} ({report[case.name]['detail']}), expected {case.expected}"
            for case in cases(languages) if report[case.name]["verdict"] != case.expected]


def retried_steps(metrics_url: str) -> float:
    """How many steps a server ran again after a sandbox death: none, where no attack took a sandbox down."""
    return total(scrape(metrics_url), "reward_sandbox_retried_steps_total")


def as_nobody(repo: pathlib.Path, view: pathlib.Path, *args: str) -> list[str]:
    """The argv (to run as root) that runs this module with ARGS as `nobody` (tests/nobody.py)."""
    return nobody.as_nobody(repo, view, "-m", "tests.sandbox_reach_cases", *args)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("serve_args", nargs="*")
    args = parser.parse_args()
    from tests.conftest import ServerHandle  # the same real server the suite starts

    server = ServerHandle("--metrics-port", "0", *args.serve_args)
    try:
        with RewardClient(server.address) as client:
            report = score(client)
        retried = retried_steps(server.metrics_url)
    finally:
        server.stop()
    log = server.stderr_text()
    kept = log if len(log) <= LOG_KEPT else f"{log[:LOG_KEPT // 2]}\n...\n{log[-LOG_KEPT // 2:]}"
    print(json.dumps({"cases": report, "retried": retried, "server_log": kept}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
