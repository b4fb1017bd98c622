"""The language table (sandboxes/languages.toml) as typed, immutable data.

Languages are data, not code: one table entry says how a language is compiled and run. The only
per-language logic here is generic, table-driven naming of the source file and entry point for
languages whose toolchain insists on it (Java: `public class Main` must live in Main.java).
"""

from __future__ import annotations

import dataclasses
import pathlib
import re
import tomllib
from collections.abc import Iterator, Mapping

DEFAULT_TABLE = pathlib.Path(__file__).with_name("languages.toml")


class UnknownLanguage(KeyError):
    """No language has this key or alias."""


@dataclasses.dataclass(frozen=True)
class Language:
    key: str
    source_file: str
    run: tuple[str, ...]
    version: tuple[str, ...]
    aliases: tuple[str, ...] = ()
    compile: tuple[str, ...] | None = None
    timeout_s: float = 15.0
    memory_mb: int = 512
    compile_timeout_s: float = 60.0
    compile_memory_mb: int = 2048
    address_space_limit: bool = False
    env: Mapping[str, str] = dataclasses.field(default_factory=dict)
    image: str | None = None
    class_named_file: bool = False
    public_decl: str | None = None
    type_decl: str | None = None
    main_decl: str | None = None
    stderr_failure_markers: tuple[str, ...] = ()
    memory_error_markers: tuple[str, ...] = ()

    @property
    def compiled(self) -> bool:
        return self.compile is not None

    def entry_name(self, code: str) -> str:
        """The type that holds the entry point (Java/Scala class or object), else the source stem."""
        default = pathlib.PurePosixPath(self.source_file).stem
        if self.main_decl is None or self.type_decl is None:
            return default
        masked = _mask_comments_and_strings(code)
        main = re.search(self.main_decl, masked)
        if main is None:
            return default
        if main.lastindex and main.group(1):
            return main.group(1)
        return _innermost_enclosing_type(masked, self.type_decl, main.start()) or default

    def source_name(self, code: str) -> str:
        """The file name the source must be written to."""
        if not self.class_named_file:
            return self.source_file
        suffix = pathlib.PurePosixPath(self.source_file).suffix
        if self.public_decl is not None:
            masked = _mask_comments_and_strings(code)
            depth = _brace_depths(masked)
            for match in re.finditer(self.public_decl, masked):
                if depth[match.start(1)] == 0:
                    return match.group(1) + suffix
        return self.entry_name(code) + suffix

    def render(self, template: tuple[str, ...], code: str, memory_mb: int) -> list[str]:
        """Fill a command template's placeholders for this program."""
        values = {"source": self.source_name(code), "entry": self.entry_name(code), "memory_mb": str(memory_mb)}
        return [part.format_map(values) for part in template]


class LanguageTable:
    """All languages, looked up case-insensitively by key or alias."""

    def __init__(self, languages: list[Language]) -> None:
        self._languages = {lang.key: lang for lang in languages}
        self._names: dict[str, Language] = {}
        for lang in languages:
            for name in (lang.key, *lang.aliases):
                folded = name.casefold()
                if folded in self._names and self._names[folded] is not lang:
                    raise ValueError(f"language name {name!r} is used by {self._names[folded].key} and {lang.key}")
                self._names[folded] = lang

    @classmethod
    def load(cls, path: pathlib.Path | str | None = None) -> LanguageTable:
        with open(path or DEFAULT_TABLE, "rb") as f:
            raw = tomllib.load(f)
        return cls([_language_from_toml(key, entry) for key, entry in raw.items()])

    def resolve(self, name: str) -> Language:
        try:
            return self._names[name.strip().casefold()]
        except KeyError:
            raise UnknownLanguage(name) from None

    def __iter__(self) -> Iterator[Language]:
        return iter(self._languages.values())

    def __len__(self) -> int:
        return len(self._languages)


_TUPLE_FIELDS = ("aliases", "compile", "run", "version", "stderr_failure_markers", "memory_error_markers")


def _language_from_toml(key: str, entry: dict) -> Language:
    known = {f.name for f in dataclasses.fields(Language)} - {"key"}
    unknown = set(entry) - known
    if unknown:
        raise ValueError(f"language {key}: unknown fields {sorted(unknown)}")
    values = {name: tuple(value) if name in _TUPLE_FIELDS else value for name, value in entry.items()}
    if "env" in values:
        values["env"] = dict(values["env"])
    return Language(key=key, **values)


_LITERAL = re.compile(r'//[^\n]*|/\*.*?\*/|"""(?:.|\n)*?"""|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])\'', re.DOTALL)


def _mask_comments_and_strings(code: str) -> str:
    """Blank out comments and string/char literals (same length) so braces and keywords in them are ignored."""
    return _LITERAL.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), code)


def _brace_depths(masked: str) -> list[int]:
    """Brace nesting depth at every position of (masked) source."""
    depths, depth = [], 0
    for char in masked:
        if char == "}":
            depth = max(depth - 1, 0)
        depths.append(depth)
        if char == "{":
            depth += 1
    return depths


def _innermost_enclosing_type(masked: str, type_decl: str, position: int) -> str | None:
    """The name of the innermost type declaration whose body `{...}` contains `position`."""
    best: tuple[int, str] | None = None
    for match in re.finditer(type_decl, masked):
        open_at = masked.find("{", match.end())
        if open_at < 0 or open_at > position:
            continue
        close_at = _matching_brace(masked, open_at)
        if close_at > position and (best is None or open_at >= best[0]):
            best = (open_at, match.group(1))
    return best[1] if best else None


def _matching_brace(masked: str, open_at: int) -> int:
    depth = 0
    for i in range(open_at, len(masked)):
        if masked[i] == "{":
            depth += 1
        elif masked[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return len(masked)
