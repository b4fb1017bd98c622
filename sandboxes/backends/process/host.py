"""What this host lets the process backend enforce, and the limits mechanism `serve --limits` picks from it.

One set of checks serves both the backend's start (which picks and logs) and `reward-server doctor` (which prints each
check with the fix for what is missing, and changes nothing).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import pathlib
import shutil

from sandboxes import split
from sandboxes.backends.process import CHOICES, cgroup_v1, cgroup_v2
from sandboxes.backends.process.limits import LimitsError, Mechanism
from sandboxes.backends.process.rlimit_slots import Rlimits
from sandboxes.policy import FIXED_PATH

log = logging.getLogger(__name__)

DELEGATION_FIX = ("run the server where its cgroup is delegated to it: as root on the host, in a systemd unit with "
                  "Delegate=yes, `systemd-run --scope -p Delegate=yes ...`, or a container with a writable cgroupfs "
                  "(docs/deploy.md); or accept the weaker `serve --limits rlimit`")


@dataclasses.dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""


def cgroup_v2_problem() -> str | None:
    """Why the cgroup v2 mechanism cannot start here (None: it can), without changing anything."""
    try:
        base = cgroup_v2.base_group()
        offered = (base / "cgroup.controllers").read_text().split()
    except (LimitsError, OSError) as e:
        return str(e)
    missing = [c for c in cgroup_v2.CONTROLLERS if c not in offered]
    if missing:
        return f"{base} is not given the {', '.join(missing)} controller(s)"
    for name in ("cgroup.procs", "cgroup.subtree_control"):
        if not os.access(base / name, os.W_OK):
            return f"{base / name} is not writable (not delegated to uid {os.geteuid()})"
    return None


def cgroup_v1_problem() -> str | None:
    for controller in cgroup_v1.CONTROLLERS:
        try:
            path = cgroup_v1.own_group(controller)
        except LimitsError as e:
            return str(e)
        if not os.access(path, os.W_OK):
            return f"{path} is not writable"
    return None


MECHANISMS = (("cgroup-v2", cgroup_v2_problem, cgroup_v2.CgroupV2),
              ("cgroup-v1", cgroup_v1_problem, cgroup_v1.CgroupV1))


def would_choose(choice: str) -> tuple[str | None, list[str]]:
    """The mode `choice` would take here (None: none, it would refuse to start) and why the stronger ones cannot."""
    if choice == "rlimit":
        return "rlimit", []
    reasons = []
    for name, problem, _ in MECHANISMS:
        reason = problem()
        if reason is None:
            return name, reasons
        reasons.append(f"{name}: {reason}")
    return ("rlimit" if choice == "auto" else None), reasons


def choose(choice: str, instance: str) -> Mechanism:
    """The strongest mechanism `choice` allows here, made for the instance named `instance`; LimitsError if `cgroup`
    was asked for and none works. Logs what it took, loudly when it is not cgroups."""
    if choice not in CHOICES:
        raise LimitsError(f"unknown limits mode {choice!r} (auto, cgroup or rlimit)")
    reasons = []
    if choice != "rlimit":
        for name, problem, make in MECHANISMS:
            reason = problem()
            if reason is None:
                try:
                    mechanism = make(instance)
                except LimitsError as e:
                    reason = str(e)
                else:
                    log.info("sandbox limits: %s (%s)", name, "; ".join(reasons) or "the strongest there is")
                    return mechanism
            reasons.append(f"{name}: {reason}")
        if choice == "cgroup":
            raise LimitsError(f"no writable cgroups ({'; '.join(reasons)}); {DELEGATION_FIX}")
    mechanism = Rlimits()
    log.warning("sandbox limits: rlimit mode, %s. WEAKER than cgroups: %s. Clients see limits=%s in "
                "ListLanguages.%s", "as asked" if choice == "rlimit" else f"no usable cgroups ({'; '.join(reasons)})",
                "; ".join(mechanism.weaker), mechanism.name, "" if choice == "rlimit" else f" To fix: {DELEGATION_FIX}")
    return mechanism


def checks() -> list[Check]:
    """Everything the process backend relies on, each with the fix for what is missing."""
    root = os.geteuid() == 0
    found = [Check("root", root, "running as root: each slot runs as a uid of its own" if root else
                   f"running as uid {os.geteuid()}: every slot shares it (no per-slot uid)",
                   "" if root else "run as root for a uid per slot (RLIMIT_NPROC per slot, slots cannot signal "
                   "each other's processes)")]
    v2, v1 = cgroup_v2_problem(), cgroup_v1_problem()
    found.append(Check("cgroup v2", v2 is None, "delegated, memory pids cpu available" if v2 is None else v2,
                       "" if v2 is None else DELEGATION_FIX))
    found.append(Check("cgroup v1", v1 is None, "memory pids cpu cpuacct writable" if v1 is None else v1,
                       "" if v1 is None else "only legacy hosts have it; cgroup v2 is what to set up"))
    if v2 is None:
        base = cgroup_v2.base_group()
        resettable = cgroup_v2.peak_resettable(base)
        found.append(Check("memory.peak reset", resettable, "per run" if resettable else
                           "not on this kernel (before 6.12): each run gets a group of its own",
                           "" if resettable else "a 6.12+ kernel saves a cgroup per run"))
    found.append(_user_namespaces())
    abi = split.landlock_abi()
    gaps = split.confinement_gaps(abi)
    found.append(Check("landlock", abi > 0, f"ABI {abi}" + "".join(f"; {gap}" for gap in gaps),
                       "" if not gaps else "a kernel with Landlock in its LSM list (lsm=landlock,...)" if abi < 1
                       else f"Linux 6.12+ (Landlock ABI {split.SIGNALS_SCOPED_ABI})"))
    for tool in ("bwrap", "gcc"):
        path = shutil.which(tool, path=FIXED_PATH)
        found.append(Check(tool, path is not None, path or f"not found on {FIXED_PATH}",
                           "" if path else "run sandboxes/setup.sh"))
    return found


def _user_namespaces() -> Check:
    limit = _read_int("/proc/sys/user/max_user_namespaces")
    clone = _read_int("/proc/sys/kernel/unprivileged_userns_clone")
    apparmor = _read_int("/proc/sys/kernel/apparmor_restrict_unprivileged_userns")
    if limit == 0:
        return Check("user namespaces", False, "user.max_user_namespaces is 0",
                     "sysctl -w user.max_user_namespaces=15000")
    if clone == 0:
        return Check("user namespaces", False, "kernel.unprivileged_userns_clone is 0",
                     "sysctl -w kernel.unprivileged_userns_clone=1")
    if apparmor == 1:
        return Check("user namespaces", False, "AppArmor restricts unprivileged user namespaces",
                     "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile for bwrap")
    return Check("user namespaces", True, f"unprivileged user namespaces allowed (max {limit})")


def _read_int(path: str) -> int | None:
    try:
        return int(pathlib.Path(path).read_text())
    except (OSError, ValueError):
        return None
