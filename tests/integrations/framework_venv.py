"""A virtual environment per training framework, for the tests of its integration (integrations/<name>.py).

The frameworks' pins collide with the main environment's (pyproject.toml says which), so each framework's tests
run a script under an interpreter of its own: our dependencies plus the framework's extra of pyproject.toml,
nothing else; our code comes from the checkout on PYTHONPATH, not installed, so an edit needs no rebuild.

A venv is built once and kept outside the clone, `~/.cache/reward-server/venvs/<name>-<hash>`, the hash that of
what it installs (so a fresh clone reuses it and a changed pin builds another); a lock makes concurrent tests
wait for one build. uv builds it: verl's tree (2 GB, torch included) took 15 s from empty caches here, 60 s on
a loaded machine, where pip took six minutes; an existing venv costs nothing.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

from tests.conftest import ROOT

log = logging.getLogger(__name__)

CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "reward-server" / "venvs"
# Where a framework needs torch: the CPU build this machine's pip finds on local disk (its find-links), as the main
# venv's [train] pin; left free, uv takes the newest torch, and PyPI's build of it is CUDA's (gigabytes).
CONSTRAINTS = ("torch==2.13.0",)
# What a framework requires that builds only against CUDA, and that none of its code the tests run imports: left out
# of its venv (overridden by a requirement whose marker no platform has, which uv drops). OpenRLHF 0.11.2 pins both.
CUDA_ONLY = {"openrlhf": ("flash-attn", "deepspeed")}
# A framework whose releases need a newer Python than ours (>= 3.11): its venv is built on that version, found on
# PATH or among pyenv's installs (pyenv's shims answer only for the version pyenv has selected).
PYTHONS = {"nemo-gym": "3.12"}
BUILD_TIMEOUT_S = 900


def requirements(name: str) -> list[str]:
    """Our dependencies and the framework's extra, as pyproject.toml declares them."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    if name not in extras:
        raise KeyError(f"pyproject.toml has no [{name}] extra: a framework's pins are declared there")
    return [*project["dependencies"], *extras[name]]


def _pip_find_links() -> list[str]:
    """The find-links pip is configured with (uv reads no pip configuration)."""
    listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True,
                            check=True).stdout
    links = []
    for line in listed.splitlines():
        key, _, value = line.partition("=")
        if key.endswith(".find-links"):
            links += value.strip("'\"").split()
    return list(dict.fromkeys(links))


def _interpreter(version: str) -> str:
    """A Python `version` that runs here."""
    pyenv = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    found = [shutil.which(f"python{version}"), *map(str, sorted(pyenv.glob(f"{version}.*/bin/python{version}")))]
    for candidate in filter(None, found):
        if subprocess.run([candidate, "-c", ""], capture_output=True).returncode == 0:
            return candidate
    raise RuntimeError(f"no Python {version} on PATH or under {pyenv}")


def _build(venv: Path, python: str, pins: list[str], left_out: tuple[str, ...]) -> None:
    uv = [sys.executable, "-m", "uv"]
    constraints = venv.with_suffix(".constraints.txt")
    constraints.write_text("".join(f"{pin}\n" for pin in CONSTRAINTS), encoding="utf-8")
    overrides = venv.with_suffix(".overrides.txt")
    overrides.write_text("".join(f"{name}; sys_platform == 'never'\n" for name in left_out), encoding="utf-8")
    started = time.monotonic()
    subprocess.run([*uv, "venv", "--quiet", "--python", python, str(venv)], check=True,
                   timeout=BUILD_TIMEOUT_S)
    find_links = [argument for link in _pip_find_links() for argument in ("--find-links", link)]
    done = subprocess.run([*uv, "pip", "install", "--quiet", "--python", str(venv / "bin" / "python"),
                           "--constraint", str(constraints), "--override", str(overrides), *find_links, *pins],
                          capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
    if done.returncode != 0:
        raise RuntimeError(f"installing {pins} into {venv} failed:\n{done.stderr}")
    log.info("built %s in %.0f s", venv, time.monotonic() - started)


def framework_python(name: str) -> Path:
    """The interpreter of the framework's venv, built first if this machine has none for its current pins."""
    pins = requirements(name)
    left_out = CUDA_ONLY.get(name, ())
    python = _interpreter(PYTHONS[name]) if name in PYTHONS else sys.executable
    version = PYTHONS.get(name, sys.version)
    digest = hashlib.sha256("\n".join([version, *pins, *CONSTRAINTS, *left_out]).encode()).hexdigest()[:12]
    venv = CACHE / f"{name}-{digest}"
    ready = venv / ".complete"   # written last: a build cut short is built again
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / f"{venv.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not ready.exists():
            shutil.rmtree(venv, ignore_errors=True)
            _build(venv, python, pins, left_out)
            ready.touch()
    return venv / "bin" / "python"


def run_script(name: str, script: Path, *args: str, timeout_s: float = 300) -> subprocess.CompletedProcess[str]:
    """`script` run by the framework's interpreter, our code importable from the checkout; output captured."""
    return subprocess.run([str(framework_python(name)), str(script), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout_s, env={**os.environ, "PYTHONPATH": str(ROOT)})
