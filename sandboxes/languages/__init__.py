"""The language table: a folder per language (sandboxes/languages/<key>/; schema.toml says what it holds)."""

from sandboxes.languages.folders import LANGUAGES_DIR, LanguageFolderError
from sandboxes.languages.model import (
    NATIVE_CHECKER,
    SCRIPT,
    CallHarness,
    Harness,
    Language,
    PrecompiledHeaders,
    Release,
    Split,
    SplitUnit,
    language_from_entry,
    script_command,
)
from sandboxes.languages.table import LanguageTable, UnknownLanguage

__all__ = ["LANGUAGES_DIR", "NATIVE_CHECKER", "SCRIPT", "CallHarness", "Harness", "Language", "LanguageFolderError",
           "LanguageTable", "PrecompiledHeaders", "Release", "Split", "SplitUnit", "UnknownLanguage",
           "language_from_entry", "script_command"]
