"""The embedded `process` backend: host toolchains, each compile and run in fresh bubblewrap namespaces."""

from __future__ import annotations

from sandboxes.backends.kind import BackendKind, Option

CHOICES = ("auto", "cgroup", "rlimit")    # serve --limits (limits.py)
SWITCH = {"on": True, "off": False, "true": True, "false": False, "yes": True, "no": False, "1": True, "0": False}


def limits_mode(text: str) -> str:
    """A --limits value."""
    if text not in CHOICES:
        raise ValueError(f"{text!r} is not one of {', '.join(CHOICES)}")
    return text


def switch(text: str) -> bool:
    """A command-line on/off value."""
    try:
        return SWITCH[text.strip().lower()]
    except KeyError:
        raise ValueError(f"{text!r} is not on or off") from None


KIND = BackendKind("process", "embedded bubblewrap sandboxes over the host's toolchains (sandboxes/setup.sh)",
                   "sandboxes.backends.process.backend:ProcessBackend", (
                       Option("fork_from_zygotes", switch, True, "runs of a language with warm_imports (Python) fork "
                              "from a warm interpreter in each slot; off: every run spawns its own (A/B, fallback)",
                              flag="zygote"),
                       Option("limits", limits_mode, "auto", "how slots are bounded: cgroup (v2 or v1, in this "
                              "process's delegated group), rlimit (no cgroups; weaker, docs/guards.md) or auto (the "
                              "strongest this host offers, said loudly at start; `reward-server doctor` tells which)"),
                   ))
