"""All languages, looked up case-insensitively by key or alias."""

from __future__ import annotations

import pathlib
from collections.abc import Iterator

from sandboxes.languages.folders import LANGUAGES_DIR, language_folders, read_language
from sandboxes.languages.model import Language


class UnknownLanguage(KeyError):
    """No language has this key or alias."""


class LanguageTable:
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
    def load(cls, directory: pathlib.Path | str = LANGUAGES_DIR) -> LanguageTable:
        """Every language folder of `directory` (sandboxes/languages/ by default)."""
        return cls([read_language(folder) for folder in language_folders(pathlib.Path(directory))])

    def resolve(self, name: str) -> Language:
        try:
            return self._names[name.strip().casefold()]
        except KeyError:
            raise UnknownLanguage(name) from None

    def __iter__(self) -> Iterator[Language]:
        return iter(self._languages.values())

    def __len__(self) -> int:
        return len(self._languages)
