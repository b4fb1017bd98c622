"""The docker images carry the runner and only the sandboxes modules in BAKED_MODULES: started from exactly
those, under the sandbox's /usr/bin/python3 with nothing of the host's environment, it must import and serve."""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess

from sandboxes.backends.docker.images import PROJECT_ROOT, RUNNER
from sandboxes.backends.docker.runtime import BAKED_MODULES


def test_runner_starts_from_the_baked_modules_alone(tmp_path: pathlib.Path) -> None:
    shutil.copy(RUNNER, tmp_path / "runner.py")
    for module in BAKED_MODULES:
        (tmp_path / module).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(PROJECT_ROOT / module, tmp_path / module)
    jobs = [{"op": "ping"}, {"op": "bogus"}]
    done = subprocess.run(["/usr/bin/python3", "-I", str(tmp_path / "runner.py")], cwd=tmp_path, env={},
                          input="".join(json.dumps(job) + "\n" for job in jobs), capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert answers == [{"ok": True}, {"error": "unknown op 'bogus'"}], done.stderr
