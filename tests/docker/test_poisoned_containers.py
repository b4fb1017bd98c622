"""The docker backend's side of tests/test_poisoned_workspaces.py: whatever tree a program leaves in its container's
workdir and /tmp (thousands of directories deep, chmod 000, odd names), it keeps its own verdict, and the next
workspace on the same container is reset clean by the runner: no lost container, no replacement."""

from __future__ import annotations

import pytest

from reward_server.graders.code import CodeJob
from reward_server.verdicts import Verdict
from sandboxes.sandbox_deaths import CAUSES
from tests.docker.conftest import grade, grader_for

POISON = """import os
for top in ('/sandbox', '/tmp'):
    os.chdir(top)
    for level in range(1500):
        os.mkdir('d')
        if level % 100 == 0:
            os.mkdir('shut')
            open('shut/inside', 'w').close()
            os.chmod('shut', 0)
            open(b'\\xff\\n' + b'x' * 250, 'w').close()
        os.chdir('d')
    os.chmod('.', 0)
print('no')
"""
LOOKS_AROUND = "import os\nprint(sorted(os.listdir('/sandbox')), os.listdir('/tmp'))\n"


@pytest.mark.asyncio
async def test_a_poisoned_workdir_is_reset_clean_on_the_same_container(start_backend, table) -> None:
    backend = await start_backend(slots=1, warm=1, warm_languages=["python"])
    grader = grader_for(backend, table, slots=1)
    poisoned = await grade(grader, CodeJob("python", POISON, io_tests=(("", "yes"),), timeout_s=20))
    assert poisoned.verdict is Verdict.WRONG_ANSWER, poisoned
    [container] = {slot.container_id for slot in backend.slots()}
    honest = await grade(grader, CodeJob("python", LOOKS_AROUND, io_tests=(("", "['main.py'] []"),)))
    assert honest.verdict is Verdict.PASS, honest
    assert {slot.container_id for slot in backend.slots()} == {container}
    assert backend.stats()["python"].replaced == 0
    assert backend.deaths.by_cause == dict.fromkeys(CAUSES, 0)
