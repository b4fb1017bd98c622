"""Whether a language can run on this host, its version, and a fingerprint of exactly what would run it: the
toolchain's binaries and its version output (a toolchain upgrade changes the fingerprint, so results cached under the
old one are never reused)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile

from sandboxes.backend import SandboxInfo
from sandboxes.backends.process.command import which
from sandboxes.languages import Language
from sandboxes.policy import BASE_ENV, FIXED_PATH

VERSION_TIMEOUT_S = 60.0


def probe(language: Language) -> SandboxInfo:
    programs = [language.version[0], *(language.compile or ())[:1], language.run[0]]
    binaries = []
    for program in dict.fromkeys(programs):
        if program.startswith("./"):
            continue
        path = which(program)
        if path is None:
            return SandboxInfo(False, f"{program} not found on {FIXED_PATH}", "", "")
        binaries.append(os.path.realpath(path))
    for argument in (*(language.compile or ())[1:], *language.run[1:]):
        for part in argument.split(":"):  # class paths name several
            if part.startswith("/") and not os.path.exists(part):
                return SandboxInfo(False, f"{part} (named by the {language.key} commands) does not exist", "", "")
    env = {**BASE_ENV, **language.env, "HOME": tempfile.gettempdir()}
    try:
        done = subprocess.run([which(language.version[0]), *language.version[1:]], capture_output=True,
                              env=env, timeout=VERSION_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        return SandboxInfo(False, f"{' '.join(language.version)} failed: {e}", "", "")
    text = (done.stdout + b"\n" + done.stderr).decode(errors="replace")
    lines = [line.strip() for line in text.splitlines() if line.strip() and "warning" not in line.lower()]
    if done.returncode != 0 or not lines:
        return SandboxInfo(False, f"{' '.join(language.version)} exited {done.returncode}: {text[-300:]}", "", "")
    digest = hashlib.sha256()
    for binary in binaries:
        digest.update(binary.encode() + b"\0")
        with open(binary, "rb") as f:
            digest.update(hashlib.file_digest(f, "sha256").digest())
    digest.update(text.encode())
    return SandboxInfo(True, "", lines[0], f"process:{language.key}:{digest.hexdigest()[:16]}")
