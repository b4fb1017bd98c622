"""The layers of docs/ARCHITECTURE.md: which package may import which, read from the source (lazy imports in
function bodies included), and no cycle between packages."""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROTOBUF = "reward_server.pb"  # the generated stubs: a layer of their own, importing nothing of ours
PACKAGES = ("sandboxes", "benchmarks", "reward_server", "trainers", "integrations", "reward_server_tasks", PROTOBUF)
ALLOWED = {
    "sandboxes": set(),
    "benchmarks": {PROTOBUF},
    "reward_server": {"sandboxes", "benchmarks", PROTOBUF},
    "trainers": {"reward_server", "benchmarks", "sandboxes", PROTOBUF},
    "integrations": {"reward_server", "benchmarks", PROTOBUF},
    "reward_server_tasks": {"integrations"},
    PROTOBUF: set(),
}


def layer_of(module: str) -> str | None:
    """The most specific layer a dotted module name belongs to."""
    matches = [p for p in PACKAGES if module == p or module.startswith(p + ".")]
    return max(matches, key=len) if matches else None


def imported_modules(path: pathlib.Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def layer_imports() -> dict[str, dict[str, set[str]]]:
    """layer -> imported layer -> the files that import it."""
    graph: dict[str, dict[str, set[str]]] = {layer: {} for layer in PACKAGES}
    for top in ("sandboxes", "benchmarks", "reward_server", "trainers", "integrations", "reward_server_tasks"):
        for path in (ROOT / top).rglob("*.py"):
            if path.parent.parent == ROOT / "sandboxes" / "languages":    # a language's own files: data, no module
                continue
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            source = layer_of(module)
            for name in imported_modules(path):
                target = layer_of(name)
                if target is not None and target != source:
                    graph[source].setdefault(target, set()).add(str(path.relative_to(ROOT)))
    return graph


@pytest.mark.parametrize("layer", PACKAGES)
def test_layer_imports_only_what_it_may(layer: str) -> None:
    forbidden = {target: sorted(files) for target, files in layer_imports()[layer].items()
                 if target not in ALLOWED[layer]}
    assert not forbidden, f"{layer} must not import {forbidden}"


def test_no_cycle_between_layers() -> None:
    graph = {layer: set(targets) for layer, targets in layer_imports().items()}

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt})) for nxt in graph[start])

    cyclic = [layer for layer in graph if reaches(layer, layer, {layer})]
    assert not cyclic, f"import cycle through {cyclic}: {graph}"


def test_the_checker_sees_a_forbidden_import(tmp_path: pathlib.Path) -> None:
    """The reader finds lazy imports inside functions, the kind that made the old package cycle."""
    source = tmp_path / "lazy.py"
    source.write_text("def load():\n    from trainers import benchmarks\n    import reward_server.client\n")
    assert {"trainers", "trainers.benchmarks", "reward_server.client"} <= imported_modules(source)
    assert layer_of("reward_server.pb.reward_pb2") == PROTOBUF and layer_of("reward_server.client") == "reward_server"
