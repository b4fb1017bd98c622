"""What the server and the code inside a sandbox must agree on, written on both sides (one of them cannot import the
other: it runs under the sandbox's interpreter, or it is C): each pinned here."""

from __future__ import annotations

import ast
import re

from sandboxes.backends.process import limits, zygote
from sandboxes.backends.process.backend import LAUNCHER_SOURCE, ZYGOTE_SOURCE


def _constants(source: str) -> dict[str, object]:
    """The module-level names a source assigns literals (or tuples of pairs) to."""
    found = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            found[node.targets[0].id] = node.value
    return found


def test_the_rlimits_are_read_in_one_order_by_the_launcher_the_zygote_and_the_server() -> None:
    names = list(limits.RLIMITS)
    resources = [f"RLIMIT_{name.upper()}" for name in names]
    launcher = re.findall(r"set_limit\((RLIMIT_\w+), limits\[(\d+)\]", LAUNCHER_SOURCE.read_text())
    assert [resource for resource, _ in launcher] == resources
    assert [int(index) for _, index in launcher] == list(range(len(names)))
    assert f"parse_limit(limits[{len(names)}])" in LAUNCHER_SOURCE.read_text()     # the uid follows them
    zygote_rlimits = _constants(ZYGOTE_SOURCE.read_text())["RLIMITS"]
    zygote_pairs = [(pair.elts[0].value, pair.elts[1].attr) for pair in zygote_rlimits.elts]
    assert zygote_pairs == list(zip(names, resources, strict=True))


def test_the_zygote_finds_its_init_where_the_server_binds_it() -> None:
    inside = {name: ast.literal_eval(value) for name, value in _constants(ZYGOTE_SOURCE.read_text()).items()
              if name in ("SCRIPT_DIR", "INIT")}
    assert inside == {"SCRIPT_DIR": zygote.SCRIPT_DIR, "INIT": zygote.INIT}
    assert zygote.SCRIPT.startswith(zygote.SCRIPT_DIR + "/")


def test_the_runs_init_is_born_blocking_the_signals_it_waits_for() -> None:
    """A pid namespace's init drops a signal it neither blocks nor handles: the zygote's spawn must block them."""
    init = (ZYGOTE_SOURCE.parent / "run_init.c").read_text()
    waited = set(re.findall(r"(SIG\w+)_BIT\b", init.split("void _start", 1)[1]))
    spawned = _constants(ZYGOTE_SOURCE.read_text())["INIT_SIGNALS"]
    assert waited == {f"{item.attr}" for item in spawned.elts} == {"SIGCHLD", "SIGUSR1"}
