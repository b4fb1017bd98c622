"""docs/ARCHITECTURE.md names only what exists: every path, file name and dotted module it quotes, and every folder
of its layer tree, is in the tree. A move that leaves the map behind fails here."""

from __future__ import annotations

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "ARCHITECTURE.md"
PACKAGES = ("reward_server", "sandboxes", "benchmarks", "trainers", "integrations")
EXTENSIONS = (".py", ".md", ".toml", ".proto", ".c", ".sh", ".lock", ".yaml")
SKIPPED_DIRS = {".git", ".venv", "__pycache__", "node_modules", ".pytest_cache", ".ruff_cache"}
_QUOTED = re.compile(r"`([^`\s]+)`")
_PATHLIKE = re.compile(r"[\w.<>/-]+")


def project_paths() -> list[str]:
    """Every file of the project and every folder holding one, relative to the root, folders with a trailing slash
    (a folder left with nothing but caches, as a move leaves it in a working tree, does not count)."""
    files = []
    stack = [ROOT]
    while stack:
        for child in stack.pop().iterdir():
            if child.name in SKIPPED_DIRS or child.name.endswith(".egg-info"):
                continue
            if child.is_dir():
                stack.append(child)
            else:
                files.append(child.relative_to(ROOT))
    folders = {f"{parent.as_posix()}/" for path in files for parent in path.parents if parent != pathlib.Path(".")}
    return [path.as_posix() for path in files] + sorted(folders)


def named_paths(text: str) -> set[str]:
    """What the document quotes as a path or file name, and the folders of its layer tree (fenced, at line start)."""
    names = {token for token in _QUOTED.findall(text) if _PATHLIKE.fullmatch(token)
             and ("/" in token or token.endswith(EXTENSIONS)) and "://" not in token}
    for block in re.findall(r"```\n(.*?)```", text, re.DOTALL):
        names |= {match.group(1) for match in re.finditer(r"(?m)^\s*([\w-]+/)\s", block)}
    return names


def exists(name: str, paths: list[str]) -> bool:
    """A name is the path from the root, or the end of one (a path relative to the package the text is in)."""
    pattern = re.escape(name).replace(r"<", "<").replace(r">", ">")
    pattern = re.sub(r"<[^>]+>", r"[^/]+", pattern)
    return any(re.fullmatch(rf"(?:.*/)?{pattern}/?", path) for path in paths)


def named_modules(text: str) -> set[str]:
    return {token for token in _QUOTED.findall(text)
            if re.fullmatch(r"[a-z_]+(?:\.[A-Za-z_]+)+", token) and token.split(".")[0] in PACKAGES}


def module_exists(dotted: str) -> bool:
    """The longest module prefix of a dotted name is a module or package of ours (the rest names what it holds)."""
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:end])
        if base.with_suffix(".py").is_file() or (base / "__init__.py").is_file():
            return end == len(parts) or _holds(base, parts[end])
    return False


def _holds(module: pathlib.Path, name: str) -> bool:
    source = module.with_suffix(".py") if module.with_suffix(".py").is_file() else module / "__init__.py"
    return re.search(rf"(?m)^(?:class|def|async def)\s+{re.escape(name)}\b|^{re.escape(name)}\s*[:=]",
                     source.read_text(encoding="utf-8")) is not None


def test_every_path_the_architecture_names_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    paths = project_paths()
    names = named_paths(text)
    assert len(names) > 40, "the reader found too few paths: its pattern no longer fits the document"
    assert sorted(name for name in names if not exists(name, paths)) == []


def test_every_module_the_architecture_names_exists() -> None:
    modules = named_modules(DOC.read_text(encoding="utf-8"))
    assert modules, "the reader found no dotted module: its pattern no longer fits the document"
    assert sorted(module for module in modules if not module_exists(module)) == []


def test_the_checks_catch_a_stale_name() -> None:
    """The two checks fail on what a move leaves behind, so a pass above means something."""
    paths = project_paths()
    assert exists("sandboxes/languages/<key>/language.toml", paths) and exists("graders/code.py", paths)
    assert not exists("sandboxes/languages.toml", paths) and not exists("sandboxes/samples/", paths)
    assert module_exists("reward_server.server.ServerConfig") and not module_exists("reward_server.server.Nothing")
