"""Prompts name languages as the language table does; the references' own quirks keep their prompts unchanged."""

from __future__ import annotations

import pytest

from benchmarks import prompts
from benchmarks.prompts import LanguageNames
from sandboxes.languages import LanguageTable, language_from_entry
from tests.language_table import load_table
from trainers import benchmarks

TABLE = load_table()
LCB_ROW = {"question_id": "q", "question_content": "Echo.",
           "private_test_cases": [{"input": "1\n", "output": "1\n", "testtype": "stdin"}]}

# How each reference names its own languages (its keys): what the prompts said before the table held the names.
MULTILCB = {  # key -> (display, fence, placeholder line)
    "python": ("Python", "python", "# YOUR CODE HERE"), "c++": ("C++", "cpp", "// YOUR CODE HERE"),
    "java": ("Java", "java", "// YOUR CODE HERE"), "c#": ("C#", "csharp", "// YOUR CODE HERE"),
    "go": ("Go", "go", "// YOUR CODE HERE"), "javascript": ("JavaScript", "javascript", "// YOUR CODE HERE"),
    "typescript": ("TypeScript", "typescript", "// YOUR CODE HERE"), "rust": ("Rust", "rust", "// YOUR CODE HERE"),
    "ruby": ("Ruby", "ruby", "# YOUR CODE HERE"), "php": ("php", "php", "// YOUR CODE HERE"),
    "kotlin": ("Kotlin", "kotlin", "// YOUR CODE HERE"), "scala": ("Scala", "scala", "// YOUR CODE HERE"),
}
AGNOSTICS = {"python": "Python 3", "c++": "C++", "cpp": "C++", "c": "C", "java": "Java", "rust": "Rust",
             "lua": "Lua", "julia": "Julia", "r": "R", "ocaml": "OCaml", "fortran": "Fortran"}
AGNOSTICS_NUDGED = {"lua", "julia", "r", "ocaml", "fortran"}
MULTIPL_E = {"py": "Python", "cpp": "C++", "java": "Java", "js": "JavaScript", "ts": "TypeScript", "rs": "Rust",
             "go": "Go", "lua": "Lua", "r": "R", "jl": "Julia", "ml": "OCaml", "rkt": "Racket", "sh": "Bash",
             "cs": "C#", "d": "D", "pl": "Perl", "php": "PHP", "rb": "Ruby", "scala": "Scala", "swift": "Swift",
             "hs": "Haskell"}


@pytest.mark.parametrize("language", sorted(MULTILCB))
def test_multilcb_names_its_languages_as_before(language: str) -> None:
    display, fence, placeholder = MULTILCB[language]
    system, user = prompts.multilcb_messages("Q", language, LanguageNames.lookup(TABLE, language))
    assert system[1].startswith(f"You are an expert {display} programmer.")
    assert f"Ensure that when the {fence} program runs" in user[1]
    assert f"\n```{fence}\n{placeholder}\n```\n" in user[1]


@pytest.mark.parametrize("language", sorted(AGNOSTICS))
def test_agnostics_names_its_languages_as_before(language: str) -> None:
    ((role, content),) = prompts.agnostics_messages("Q", language, LanguageNames.lookup(TABLE, language))
    head = ("# Problem\nQ\n\n# Task\nProvide a full implementation of the specified program in a Markdown code "
            f"block.\nUse the following programming language: {AGNOSTICS[language]}\n")
    assert role == "user" and content.startswith(head)
    assert (content != head) == (language in AGNOSTICS_NUDGED)


@pytest.mark.parametrize("language", sorted(MULTIPL_E))
def test_multipl_e_names_its_languages_as_before(language: str) -> None:
    ((_, content),) = prompts.multipl_e_messages("x", LanguageNames.lookup(TABLE, language))
    assert content.startswith(f"Continue the following {MULTIPL_E[language]} program from exactly where it stops.")


def test_prompts_read_the_names_from_the_table() -> None:
    lua = language_from_entry("lua", {"source_file": "main.lua", "run": ["lua"], "version": ["lua", "-v"],
                                      "packages": [], "display": "Lua 5.4", "fence": "lua54",
                                      "comment": "--[[ {} ]]", "aliases": ["luajit"]})
    bare = language_from_entry("zig", {"source_file": "main.zig", "run": ["zig"], "version": ["zig"],
                                       "packages": []})   # no prompt names
    table = LanguageTable([lua, bare])
    system, user = prompts.multilcb_messages("Q", "luajit", LanguageNames.lookup(table, "luajit"))
    assert system[1].startswith("You are an expert Lua 5.4 programmer.")
    assert "\n```lua54\n--[[ YOUR CODE HERE ]]\n```\n" in user[1]
    assert "language: Lua 5.4\nTarget Lua 5.1" in prompts.agnostics_messages("Q", "lua", LanguageNames.lookup(
        table, "lua"))[0][1]
    assert LanguageNames.lookup(table, "zig") == LanguageNames("zig", "zig", "# {}")   # empty names: the key
    assert LanguageNames.lookup(table, "klingon") == LanguageNames("klingon", "klingon", "// {}")   # unknown


def test_the_loaders_name_languages_from_the_real_table() -> None:
    ocaml = benchmarks.livecodebench([LCB_ROW], languages=["ml"])[0]   # an alias of ocaml
    assert ocaml["prompt"][0]["content"].startswith("You are an expert OCaml programmer.")
    assert "```ocaml\n(* YOUR CODE HERE *)\n```" in ocaml["prompt"][1]["content"]
    racket = benchmarks.multipl_e([{"name": "HumanEval_0_x", "language": "rkt", "prompt": "#lang racket\n",
                                    "tests": "", "stop_tokens": []}])[0]
    assert racket["prompt"][0]["content"].startswith("Continue the following Racket program")
