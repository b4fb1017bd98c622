"""Workspaces cannot be poisoned: whatever tree a program leaves in its workspace (thousands of directories deep,
chmod 000, long or odd names, symlinks out, many files), it gets the verdict its run earned, and its slot's next
program a clean slot; a workspace that still cannot be removed renews the slot; a server killed over such a tree
never stops the next one from starting, as root or as `nobody`. A Java or Scala type named past a file name's length
is the program's COMPILE_ERROR.

Every server here has one slot, so each next program runs where the last one left its tree.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import signal
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator

import pytest

from reward_server.client import RewardClient, RewardServerError
from reward_server.pb import reward_pb2
from sandboxes.backends.process.instances import PREFIX
from sandboxes.trees import remove_tree
from tests import nobody
from tests.candidates import python_script, stdio, verdict_name
from tests.conftest import ROOT, ServerHandle, wait_for

WRONG = "print('no')\n"     # what every poisoning program answers, on top of its tree: WRONG_ANSWER

DEEP = "import os\nfor _ in range(1500):\n    os.mkdir('d')\n    os.chdir('d')\n"
# 1,300 names of 255 bytes: a path of 330 KB, far past PATH_MAX
LONG_PATH = "import os\nfor _ in range(1300):\n    os.mkdir('n' * 255)\n    os.chdir('n' * 255)\n"
# deeper than the server may hold files open (its RLIMIT_NOFILE): one directory open per level would not do
DEEPER_THAN_FDS = "import os\nfor _ in range(30000):\n    os.mkdir('d')\n    os.chdir('d')\n"
LOCKED = """import os
for level in range(1200):
    os.mkdir('d')
    with open('f', 'w') as f:
        f.write('x')
    os.chmod('f', 0)
    if level % 100 == 0:
        os.mkdir('shut')
        open('shut/inside', 'w').close()
        os.chmod('shut', 0)
        os.mkdir('unwritable')
        open('unwritable/inside', 'w').close()
        os.chmod('unwritable', 0o500)
    os.chdir('d')
for level in range(1200):
    os.chdir('..')
    os.chmod('d', 0)
os.chmod('/tmp', 0)
os.chmod('/sandbox', 0)
"""
ODD_NAMES = """import os
names = [b'\\xff\\xfe', b'new\\nline', b'-rf', b'..a', b' ', b'\\x01\\x02', 'ℵ'.encode() * 85, b'x' * 255]
for name in names:
    with open(name, 'wb') as f:
        f.write(b'x')
os.symlink('/', b'root')
os.symlink(input(), b'outside')
os.symlink('loop', b'loop')
for name in names:
    os.mkdir(b'dir' + name[:200])
    os.chdir(b'dir' + name[:200])
os.symlink(input(), b'outside')
for _ in range(1200):
    os.mkdir(names[0])
    os.chdir(names[0])
os.symlink('/', b'root')
"""
MANY = """import os
for i in range(20000):
    open(f'f{i}', 'w').close()
for i in range(2000):
    os.mkdir(f'd{i}')
    open(f'd{i}/f', 'w').close()
"""
IN_TMP_THEN_RAISE = "import os\nos.chdir('/tmp')\nfor _ in range(1500):\n    os.mkdir('d')\n    os.chdir('d')\n" \
                    "raise SystemExit(3)\n"
CPP_DEEP = """#include <cstdio>
#include <sys/stat.h>
#include <unistd.h>
int main() {
    for (int i = 0; i < 1500; i++) {
        mkdir("d", 0700);
        chdir("d");
    }
    mkdir("shut", 0);
    puts("no");
}
"""
BASH_DEEP = "for i in $(seq 1500); do mkdir d && cd d || exit 1; done\nmkdir shut && chmod 000 shut\necho no\n"
# javac writes the class file 1,500 directories down; `java Main` then finds no Main
JAVA_DEEP_PACKAGE = "package " + ".".join(["p"] * 1500) + ";\npublic class Main {\n" \
                    "    public static void main(String[] args) { System.out.println(\"no\"); }\n}\n"
HONEST = python_script("honest", "print('yes')\n", "yes")


def poisoned(name: str, language: str, code: str, stdin: str = "") -> reward_pb2.Candidate:
    return stdio(name, language, code, [(stdin, "yes")], timeout_s=20, memory_mb=1024)


def score_one(client: RewardClient, candidate: reward_pb2.Candidate) -> reward_pb2.ScoreResult:
    [result] = client.score([candidate], timeout_s=300)
    return result


def instance_of(pid: int) -> pathlib.Path:
    """The sandbox instance directory of the server `pid`: the one whose lock it holds (instances.py)."""
    for fd in pathlib.Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            target = os.readlink(fd)
            if os.path.basename(target).startswith(PREFIX) and target.endswith(".lock"):
                return pathlib.Path(target.removesuffix(".lock"))
    raise AssertionError(f"server {pid} holds no sandbox instance lock")


def slot_entries(server_pid: int) -> list[str]:
    """What the server's only slot holds between candidates (nothing, when its workspaces were removed)."""
    return os.listdir(instance_of(server_pid) / "slot0")


def workspace_file(server_pid: int, name: str) -> pathlib.Path | None:
    """The file `name` in the box of the slot's workspace, once there is one holding it."""
    return next(iter((instance_of(server_pid) / "slot0").glob(f"w*/box/{name}")), None)


@pytest.fixture(scope="module", params=["zygote", "spawn"])
def server(request: pytest.FixtureRequest) -> Iterator[ServerHandle]:
    """A one-slot server; its Python runs forked by the slot's zygote, or spawned (--zygote off)."""
    handle = ServerHandle("--workers", "1", "--zygote", "on" if request.param == "zygote" else "off")
    yield handle
    assert handle.stop() == 0, handle.stderr_text()[-3000:]


@pytest.fixture(scope="module")
def client(server: ServerHandle) -> Iterator[RewardClient]:
    with RewardClient(server.address) as connected:
        yield connected


@pytest.fixture
def outside(tmp_path: pathlib.Path) -> pathlib.Path:
    """A directory of the host's a program links to: the removal must unlink the links, never follow them."""
    (tmp_path / "keep").write_text("kept")
    return tmp_path


@pytest.mark.parametrize(("name", "language", "code", "verdict"), [
    ("1,500 deep", "python", DEEP + WRONG, "WRONG_ANSWER"),
    ("a path past PATH_MAX", "python", LONG_PATH + WRONG, "WRONG_ANSWER"),
    ("deeper than the server may open files", "python", DEEPER_THAN_FDS + WRONG, "WRONG_ANSWER"),
    ("chmod 000 at every level, its /sandbox and /tmp too", "python", LOCKED + WRONG, "WRONG_ANSWER"),
    ("odd names and symlinks out", "python", ODD_NAMES + WRONG, "WRONG_ANSWER"),
    ("many files", "python", MANY + WRONG, "WRONG_ANSWER"),
    ("1,500 deep in /tmp, then an exit status", "python", IN_TMP_THEN_RAISE, "RUNTIME_ERROR"),
    ("C++, 1,500 deep", "cpp", CPP_DEEP, "WRONG_ANSWER"),
    ("bash, 1,500 deep", "bash", BASH_DEEP, "WRONG_ANSWER"),
    ("a Java package 1,500 names deep", "java", JAVA_DEEP_PACKAGE, "RUNTIME_ERROR"),
])
def test_a_poisoning_program_keeps_its_verdict_and_its_slot_is_clean_for_the_next(
        server: ServerHandle, client: RewardClient, outside: pathlib.Path, name: str, language: str, code: str,
        verdict: str) -> None:
    result = score_one(client, poisoned(name, language, code, f"{outside}\n{outside}\n"))
    assert verdict_name(result) == verdict, result
    assert slot_entries(server.process.pid) == [], "the program's workspace is still in its slot"
    assert (outside / "keep").read_text() == "kept"
    assert verdict_name(score_one(client, HONEST)) == "PASS"


@pytest.mark.parametrize(("language", "code"), [
    ("java", "public class " + "C" * 300 + " {\n    public static void main(String[] args) {\n"
             "        System.out.println(\"yes\");\n    }\n}\n"),
    # C and 130 two-byte letters: a file name of 266 bytes, though of 136 characters
    ("java", "public class C" + "Ж" * 130 + " {\n    public static void main(String[] args) {\n"
             "        System.out.println(\"yes\");\n    }\n}\n"),
    ("scala", "object " + "O" * 300 + " {\n  def main(args: Array[String]): Unit = println(\"yes\")\n}\n"),
])
def test_a_type_named_past_a_file_name_is_a_compile_error(client: RewardClient, language: str, code: str) -> None:
    result = score_one(client, stdio("long name", language, code, [("", "yes")]))
    assert verdict_name(result) == "COMPILE_ERROR", result
    assert "over the 255 a file name may have" in result.detail
    assert verdict_name(score_one(client, HONEST)) == "PASS"


# Waits, its workspace ready, until the test has done to it what no program can (a mount, an immutable file).
WAITS_FOR_THE_TEST = python_script("waits", """import os, time
os.mkdir('stuck')
open('stuck/file', 'w').close()
open('ready', 'w').close()
while not os.path.exists('go'):
    time.sleep(0.02)
print('no')
""", "yes", timeout_s=20)
# Builds its tree, says so, and waits to be killed with its server.
BUILDS_AND_WAITS = python_script("builds", LOCKED.replace("os.chmod('/sandbox', 0)\n", "")
                                 + DEEPER_THAN_FDS.replace("'d'", "'e'")
                                 + "open('/sandbox/built', 'w').close()\nimport time\ntime.sleep(10 ** 6)\n",
                                 "yes", timeout_s=60)


def score_spoiled(server: ServerHandle, client: RewardClient,
                  spoil: Callable[[pathlib.Path], object]) -> reward_pb2.ScoreResult:
    """WAITS_FOR_THE_TEST's result, its box spoiled by `spoil(box)` while it waits."""
    results: list[reward_pb2.ScoreResult] = []
    scoring = threading.Thread(target=lambda: results.append(score_one(client, WAITS_FOR_THE_TEST)))
    scoring.start()
    try:
        wait_for(lambda: workspace_file(server.process.pid, "ready"), "the program's workspace ready")
        box = workspace_file(server.process.pid, "ready").parent
        spoil(box / "stuck")
        (box / "go").touch()
    finally:
        scoring.join(150)
    [result] = results
    return result


def test_a_workspace_that_cannot_be_removed_costs_the_slot_its_tmpfs(server: ServerHandle,
                                                                      client: RewardClient) -> None:
    """A mount inside a workspace (no program can make one: the test does) is never removed through: the slot's
    tmpfs is dropped whole and a fresh one mounted; the program keeps its verdict, the next gets a clean slot."""
    result = score_spoiled(server, client, lambda stuck: subprocess.run(
        ["mount", "-t", "tmpfs", "tmpfs", str(stuck)], check=True))
    assert verdict_name(result) == "WRONG_ANSWER", result
    slot = instance_of(server.process.pid) / "slot0"
    assert os.path.ismount(slot) and os.listdir(slot) == []
    assert "slot 0: its workspaces renewed" in server.stderr_text()
    assert verdict_name(score_one(client, HONEST)) == "PASS"


def nobody_server(view: pathlib.Path, *extra_args: str) -> ServerHandle:
    """`reward-server serve` as `nobody` (tests/nobody.py); its process is the server itself (every step execs)."""
    return ServerHandle(*extra_args, python=nobody.as_nobody(ROOT, view))


@pytest.fixture
def view() -> Iterator[pathlib.Path]:
    """An empty directory anyone may enter, in $TMPDIR itself (nobody may enter pytest's own)."""
    with tempfile.TemporaryDirectory() as path:
        os.chmod(path, 0o755)
        yield pathlib.Path(path)


@pytest.fixture(params=["root", "nobody"])
def start_one_slot(request: pytest.FixtureRequest, view: pathlib.Path) -> Iterator[Callable[[], ServerHandle]]:
    """start() -> a one-slot server, as root or as `nobody` (its workspaces plain directories in $TMPDIR)."""
    started: list[ServerHandle] = []

    def start() -> ServerHandle:
        started.append(ServerHandle("--workers", "1") if request.param == "root"
                       else nobody_server(view, "--workers", "1"))
        return started[-1]

    yield start
    for handle in started:
        handle.stop()


def test_a_server_killed_over_a_poisoned_workspace_leaves_nothing_that_stops_the_next(
        start_one_slot: Callable[[], ServerHandle]) -> None:
    doomed = start_one_slot()
    errors: list[Exception] = []

    def score() -> None:
        with RewardClient(doomed.address) as client:
            try:
                score_one(client, BUILDS_AND_WAITS)
            except RewardServerError as e:      # the server died under the call
                errors.append(e)

    scoring = threading.Thread(target=score)
    scoring.start()
    try:
        wait_for(lambda: workspace_file(doomed.process.pid, "built") or not scoring.is_alive(),
                 "the program's tree built", timeout_s=120)
        assert workspace_file(doomed.process.pid, "built"), "the program ended before its tree was built"
        instance = instance_of(doomed.process.pid)
    finally:
        doomed.process.send_signal(signal.SIGKILL)
        doomed.process.wait()
        scoring.join(60)
    assert errors, "the call survived its server"
    successor = start_one_slot()
    assert not instance.exists() and not pathlib.Path(f"{instance}.lock").exists()
    assert "removing leftovers of a dead sandbox instance" in successor.stderr_text()
    with RewardClient(successor.address) as client:
        assert verdict_name(score_one(client, HONEST)) == "PASS"


def test_without_root_a_workspace_that_cannot_be_removed_costs_the_slot_its_directory(view: pathlib.Path) -> None:
    """As `nobody`, an immutable file (no program can make one: the test does, as root) in a workspace: the slot's
    directory is moved aside and a fresh one made; the program keeps its verdict, the next gets a clean slot; at
    close what is left keeps its lock, for the next start to try again."""
    server = nobody_server(view, "--workers", "1")
    instance = instance_of(server.process.pid)
    try:
        with RewardClient(server.address) as client:
            result = score_spoiled(server, client, lambda stuck: subprocess.run(
                ["chattr", "+i", str(stuck / "file")], check=True))
            assert verdict_name(result) == "WRONG_ANSWER", result
            assert os.listdir(instance / "slot0") == []
            assert len(list(instance.glob("slot0-dirty-*/w*/box/stuck/file"))) == 1
            assert "slot 0: its workspaces renewed" in server.stderr_text()
            assert verdict_name(score_one(client, HONEST)) == "PASS"
        assert server.stop() == 0, server.stderr_text()[-3000:]
        assert pathlib.Path(f"{instance}.lock").exists(), "what could not be removed lost its lock"
    finally:
        server.stop()
        for immutable in instance.glob("slot0*/w*/box/stuck/file"):
            subprocess.run(["chattr", "-i", str(immutable)], check=True)
        remove_tree(instance)
        pathlib.Path(f"{instance}.lock").unlink(missing_ok=True)
