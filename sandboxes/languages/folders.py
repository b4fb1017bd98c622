"""Reading a language's folder (schema.toml says what it holds) into the flat entry model.py checks.

Each field must sit in its section, as schema.toml places it, so that a folder reads the same way for every language;
the files a folder's entry names (split templates, harness parts, call-harness template, compile script) are read here,
so a `Language` carries their text and needs no file at run time. A compiler snapshot script stays a file: Node runs it.
"""

from __future__ import annotations

import pathlib
import tomllib

from sandboxes.languages.model import NATIVE_CHECKER, Language, language_from_entry, script_command

LANGUAGES_DIR = pathlib.Path(__file__).parent
ENTRY_FILE = "language.toml"

SECTION_FIELDS: dict[str, frozenset[str]] = {
    "prompt": frozenset({"display", "fence", "comment", "aliases"}),
    "run": frozenset({"source_file", "compile", "compile_script", "run", "version", "timeout_s", "memory_mb",
                      "compile_timeout_s", "compile_memory_mb", "address_space_limit", "env", "class_named_file",
                      "public_decl", "type_decl", "main_decl", "stderr_failure_markers", "memory_error_markers"}),
    "install": frozenset({"packages", "docker_image", "release", "setup"}),
    "speedups": frozenset({"warm_imports", "precompiled_headers", "class_archive", "compiler_snapshot",
                           "run_class_archive"}),
    "grading": frozenset({"checker", "harness", "split", "call_harness"}),
}
_HARNESS_FIELDS = frozenset({"when", "substitute", "rewrite", "replacement", "prologue", "epilogue"})
_HARNESS_PAIRS = {"rewrite": "replacement"}    # a regex and the file that replaces its match


class LanguageFolderError(ValueError):
    """A language folder's entry is not in schema.toml's shape, or names a file it lacks."""


def language_folders(directory: pathlib.Path = LANGUAGES_DIR) -> list[pathlib.Path]:
    """Every language's folder: each directory here (a directory without an entry is an error, not a skip)."""
    folders = sorted(path for path in directory.iterdir() if path.is_dir() and path.name != "__pycache__")
    for folder in folders:
        if not (folder / ENTRY_FILE).is_file():
            raise LanguageFolderError(f"{folder}: a language folder without {ENTRY_FILE}")
    return folders


def read_language(folder: pathlib.Path) -> Language:
    with open(folder / ENTRY_FILE, "rb") as f:
        sections = tomllib.load(f)
    key = folder.name
    entry: dict = {}
    for section, fields in sections.items():
        if section not in SECTION_FIELDS:
            raise LanguageFolderError(f"language {key}: unknown section [{section}] (have {sorted(SECTION_FIELDS)})")
        misplaced = set(fields) - SECTION_FIELDS[section]
        if misplaced:
            raise LanguageFolderError(f"language {key}: {sorted(misplaced)} do not belong in [{section}]")
        entry |= fields
    return language_from_entry(key, _with_files(folder, entry))


def _with_files(folder: pathlib.Path, entry: dict) -> dict:
    """The entry with every file it names read in."""
    entry = dict(entry)
    if "compile_script" in entry:
        if "compile" in entry:
            raise LanguageFolderError(f"language {folder.name}: compile and compile_script both")
        entry["compile"] = list(script_command(_read(folder, entry.pop("compile_script"))))
    if entry.get("checker", NATIVE_CHECKER) != NATIVE_CHECKER:
        entry["checker"] = _read(folder, entry["checker"])
    if "harness" in entry:
        entry["harness"] = [_harness(folder, layout) for layout in entry["harness"]]
    if "call_harness" in entry:
        entry["call_harness"] = {**entry["call_harness"],
                                 "template": _read(folder, entry["call_harness"].get("template", ""))}
    if "compiler_snapshot" in entry:
        _read(folder, entry["compiler_snapshot"])
    if "split" in entry:
        entry["split"] = {**entry["split"], **{name: _read(folder, entry["split"][name])
                                               for name in ("stub", "dispatcher", "codec", "prologue")
                                               if name in entry["split"]}}
        if "unit" in entry["split"]:
            unit = entry["split"]["unit"]
            entry["split"]["unit"] = {**unit, **{name: _read(folder, unit[name]) for name in ("template", "dispatcher")
                                                  if name in unit}}
    return entry


def _harness(folder: pathlib.Path, layout: dict) -> dict:
    unknown = set(layout) - _HARNESS_FIELDS
    if unknown:
        raise LanguageFolderError(f"language {folder.name}: unknown harness fields {sorted(unknown)}")
    harness = {name: _read(folder, layout[name]) for name in ("prologue", "epilogue") if name in layout}
    harness |= {name: layout[name] for name in ("when", "substitute") if name in layout}
    for pattern, replacement in _HARNESS_PAIRS.items():
        if (pattern in layout) != (replacement in layout):
            raise LanguageFolderError(
                f"language {folder.name}: a harness {pattern} needs its {replacement}, and only it")
        if pattern in layout:
            harness[pattern] = [layout[pattern], _read(folder, layout[replacement])]
    return harness


def _read(folder: pathlib.Path, name: str) -> str:
    path = folder / name
    if not name or pathlib.PurePath(name).name != name or not path.is_file():
        raise LanguageFolderError(f"language {folder.name}: {name!r} is not a file of its folder")
    return path.read_text(encoding="utf-8")
