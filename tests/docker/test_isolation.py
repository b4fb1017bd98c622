"""What a program inside a sandbox container cannot do: reach a network, write outside its workdir, be root, read the
runner that holds its workspace's files."""

from __future__ import annotations

import pytest

from reward_server.graders.code import CodeJob
from reward_server.verdicts import Verdict
from tests.docker.conftest import grade, grader_for

PROBE_NETWORK = """
import os, socket
print(sorted(os.listdir('/sys/class/net')))
for host, port in (({registry_host!r}, {registry_port}), ('1.1.1.1', 53), ('deb.debian.org', 80)):
    try:
        socket.create_connection((host, port), timeout=3).close()
        print('reached', host)
    except OSError:
        print('blocked', host)
"""

PROBE_WRITES = """
import os
for path in ('/etc/evil', '/opt/sandbox/evil', '/usr/bin/evil', '/evil', '/root/evil', '/var/tmp/evil',
             '/dev/shm/evil', '/sys/fs/cgroup/evil'):
    try:
        with open(path, 'w') as f:
            f.write('x')
        print('wrote', path)
    except OSError:
        print('denied', path)
with open('/sandbox/ok', 'w') as f:
    f.write('fine')
with open('/tmp/ok', 'w') as f:
    f.write('fine')
status = dict(line.split(':', 1) for line in open('/proc/self/status'))
print(os.getuid(), status['CapEff'].strip(), status['NoNewPrivs'].strip())
"""

WRITE_EXPECTED = "".join(f"denied {p}\n" for p in (
    "/etc/evil", "/opt/sandbox/evil", "/usr/bin/evil", "/evil", "/root/evil", "/var/tmp/evil", "/dev/shm/evil",
    "/sys/fs/cgroup/evil")) + "65534 0000000000000000 1\n"

# the runner (the program's parent, its user's) holds each request: the workspace's files, the tests among them
PROBE_RUNNER = """
import os
for name in ('mem', 'fd/0', 'environ'):
    try:
        open(f'/proc/{os.getppid()}/{name}', 'rb').close()
        print('opened', name)
    except OSError:
        print('denied', name)
print(open('/proc/self/oom_score_adj').read().strip())
"""

LEFTOVER = """
import os
print(sorted(os.listdir('/sandbox')), sorted(os.listdir('/tmp')))
with open('/tmp/left-behind', 'w') as f:
    f.write('x')
"""


@pytest.mark.asyncio
async def test_no_network(start_backend, table, engine) -> None:
    backend = await start_backend(warm=1, warm_languages=["python"])
    host, port = engine.registry.split(":")
    source = PROBE_NETWORK.format(registry_host=host, registry_port=int(port))
    expected = f"['lo']\nblocked {host}\nblocked 1.1.1.1\nblocked deb.debian.org\n"
    result = await grade(grader_for(backend, table), CodeJob("python", source, io_tests=(("", expected),)))
    assert result.verdict is Verdict.PASS, result.detail


@pytest.mark.asyncio
async def test_no_writes_outside_the_workdir_and_no_privileges(start_backend, table) -> None:
    backend = await start_backend(warm=1, warm_languages=["python"])
    result = await grade(grader_for(backend, table), CodeJob("python", PROBE_WRITES, io_tests=(("", WRITE_EXPECTED),)))
    assert result.verdict is Verdict.PASS, result.detail


@pytest.mark.asyncio
async def test_the_runner_is_out_of_the_program_s_reach(start_backend, table) -> None:
    """Measured before: a C++ program that read the runner's memory found the tests' expected values and passed."""
    backend = await start_backend(warm=1, warm_languages=["python"])
    expected = "denied mem\ndenied fd/0\ndenied environ\n1000\n"     # and the OOM killer still takes it first
    result = await grade(grader_for(backend, table), CodeJob("python", PROBE_RUNNER, io_tests=(("", expected),)))
    assert result.verdict is Verdict.PASS, result.detail


@pytest.mark.asyncio
async def test_each_workspace_starts_clean(start_backend, table) -> None:
    backend = await start_backend(warm=1, warm_languages=["python"], recycle_after=100)
    grader = grader_for(backend, table, slots=1)
    expected = "['main.py'] []\n"
    for _ in range(3):
        result = await grade(grader, CodeJob("python", LEFTOVER, io_tests=(("", expected),)))
        assert result.verdict is Verdict.PASS, result.detail
    assert backend.stats()["python"].started == 1
