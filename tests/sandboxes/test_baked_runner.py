"""The docker images carry the runner and only the sandboxes modules in BAKED_MODULES: started from exactly
those, under the sandbox's /usr/bin/python3 with nothing of the host's environment, it must import and serve, and
the recipe's build of the toolchain artifacts must import; the language.json they read is the table entry itself."""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess

from sandboxes.backends.docker.images import PROJECT_ROOT, RUNNER, language_json
from sandboxes.backends.docker.runtime import BAKED_MODULES, baked_language
from sandboxes.languages import LanguageTable


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
    built = subprocess.run(["/usr/bin/python3", "-c", "import sandboxes.backends.docker.bake_artifacts"], cwd=tmp_path,
                           env={}, capture_output=True, text=True, timeout=60, check=False)
    assert built.returncode == 0, built.stderr


def test_the_baked_language_json_reads_back_as_the_table_entry(table: LanguageTable, tmp_path: pathlib.Path) -> None:
    for language in table:
        path = tmp_path / f"{language.key}.json"
        path.write_text(language_json(language))
        assert baked_language(str(path)) == language
