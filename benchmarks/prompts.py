"""The benchmarks' prompt formats, as chat messages: (role, content) pairs, as a Problem holds them.

- Multi-LCB: LiveCodeBench's code-generation prompt generalised per language (system + user, a fenced
  placeholder block the model fills in; graded with the first fenced block). A functional (LeetCode) problem is
  asked as LiveCodeBench asks it, whatever the style: the starter code in that block (benchmarks/starter_code.py).
- Agnostics: `# Problem` / `# Task`, the language named in the task, plus the per-language nudge the
  Agnostics configs add for low-resource languages.
- MultiPL-E: a completion prompt; the model continues the given code, which is graded as
  prompt + completion (cut at the stop tokens) + tests.
- SAIR Stage 1: the competition's template with `{{equation1}}` / `{{ equation1 }}` placeholders; when a
  counterexample is required, a note on how to write it follows.
The wording is data (templates here); how a language is named (display name, fence tag, comment) comes from
the language table, which callers pass in (`sandboxes.languages.LanguageTable` fits `LanguageTable` below).
Where a reference names a language its own way, a small override table here says so. A language the table
does not know is named by its key: whether it can run is the server's call (an infra verdict), not the prompt's.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Protocol

Messages = tuple[tuple[str, str], ...]


class CallHarnessEntry(Protocol):
    """A language's call-based harness (`sandboxes.languages.CallHarness`): the JSON value kinds it takes."""

    @property
    def values(self) -> tuple[str, ...]: ...


class TableEntry(Protocol):
    """One language of the table (`sandboxes.languages.Language`); an empty display or fence means the key."""

    @property
    def key(self) -> str: ...
    @property
    def call_harness(self) -> CallHarnessEntry | None: ...
    @property
    def display(self) -> str: ...
    @property
    def fence(self) -> str: ...
    @property
    def comment(self) -> str: ...


class LanguageTable(Protocol):
    """Resolves a language key or alias, raising KeyError for one it does not know."""

    def resolve(self, name: str) -> TableEntry: ...


@dataclasses.dataclass(frozen=True)
class LanguageNames:
    """How a prompt names one language."""

    display: str    # "C++"
    fence: str      # the Markdown fence tag, "cpp"
    comment: str    # a comment holding {}: "// {}", "(* {} *)"

    @classmethod
    def lookup(cls, table: LanguageTable, language: str) -> LanguageNames:
        """The table's names for `language`; one it does not know is called by its key and commented `//`
        (as Multi-LCB comments most of its languages)."""
        try:
            entry = table.resolve(language)
        except KeyError:
            return cls(language, language, "// {}")
        return cls(entry.display or entry.key, entry.fence or entry.key, entry.comment)


# Multi-LCB names PHP in lower case; its other names, and its comments ("#" for python and ruby, "//" for the
# rest of its languages), are the table's.
MULTILCB_NAMES: dict[str, dict[str, str]] = {"php": {"display": "php"}}
MULTILCB_SYSTEM = (
    "You are an expert {display} programmer. You will be given a question (problem specification) and will "
    "generate a correct {display} program that matches the specification and passes all tests."
)
MULTILCB_FORMAT = (
    "Read the inputs from stdin solve the problem and write the answer to stdout (do not directly test on "
    "the sample inputs). Enclose your code within delimiters as follows. Ensure that when the {fence} program "
    "runs, it reads the inputs, runs the algorithm and writes output to STDOUT.\n\n"
)
MULTILCB_USER = (
    "### Question:\n{question}\n\n### Format: {format}\n```{fence}\n{placeholder}\n```\n\n"
    "### Answer: (use the provided format with backticks)\n\n"
)
MULTILCB_PLACEHOLDER = "YOUR CODE HERE"
# LiveCodeBench's format line for a problem with starter code (a LeetCode function)
LCB_STARTER_FORMAT = ("You will use the following starter code to write the solution to the problem and enclose "
                      "your code within delimiters.")

# Agnostics language keys -> the name its task line uses where it differs from the table's.
AGNOSTICS_NAMES: dict[str, str] = {"python": "Python 3", "c": "C"}
# Agnostics language keys -> the nudge its configs append for low-resource languages.
AGNOSTICS_NUDGES: dict[str, str] = {
    "lua": "Target Lua 5.1 as run by LuaJIT.",
    "julia": "Target Julia 1.11.",
    "r": "Target R 4. Read standard input with `readLines(con = file(\"stdin\"))` and write the answer with "
         "`cat`, not `print`.",
    "ocaml": "Target OCaml 5. Integer and float arithmetic use different operators (`+` vs `+.`); convert "
             "explicitly with `float_of_int` / `int_of_float`.",
    "fortran": "Target Fortran 90. Start every scope with `implicit none`; arrays are 1-based unless declared "
               "otherwise; read a count before allocating and reading an array.",
}
AGNOSTICS_TEMPLATE = (
    "# Problem\n{question}\n\n# Task\n"
    "Provide a full implementation of the specified program in a Markdown code block.\n"
    "Use the following programming language: {language}\n"
)

MULTIPLE_INSTRUCTION = (
    "Continue the following {display} program from exactly where it stops. Reply with only the code that "
    "comes next: do not repeat the given code and do not use Markdown fences.\n\n{code}"
)

SAIR_PLACEHOLDER = re.compile(r"\{\{\s*(equation1|equation2)\s*\}\}")
# what a counterexample must look like when the grader checks it (reward_server/graders/counterexample.py)
COUNTEREXAMPLE_FORMAT = (
    "\nWrite the COUNTEREXAMPLE as the operation table of a finite magma on the elements 0, 1, ..., n-1 (n at most "
    "16): a list of n rows of n integers whose row a, column b holds a * b, e.g. [[0, 1], [1, 0]]. Equation 1 must "
    "hold for every assignment of elements to its variables, and Equation 2 must fail for at least one.\n"
)


def multilcb_messages(question: str, language: str, names: LanguageNames) -> Messages:
    names = dataclasses.replace(names, **MULTILCB_NAMES.get(language, {}))
    user = MULTILCB_USER.format(question=question, format=MULTILCB_FORMAT.format(fence=names.fence),
                                fence=names.fence, placeholder=names.comment.format(MULTILCB_PLACEHOLDER))
    return ("system", MULTILCB_SYSTEM.format(display=names.display)), ("user", user)


def functional_messages(question: str, language: str, names: LanguageNames, starter: str) -> Messages:
    """LiveCodeBench's prompt for a problem with starter code, the language named as Multi-LCB names it."""
    names = dataclasses.replace(names, **MULTILCB_NAMES.get(language, {}))
    user = MULTILCB_USER.format(question=question, format=LCB_STARTER_FORMAT, fence=names.fence, placeholder=starter)
    return ("system", MULTILCB_SYSTEM.format(display=names.display)), ("user", user)


def agnostics_messages(question: str, language: str, names: LanguageNames) -> Messages:
    content = AGNOSTICS_TEMPLATE.format(question=question, language=AGNOSTICS_NAMES.get(language, names.display))
    if nudge := AGNOSTICS_NUDGES.get(language):
        content += nudge + "\n"
    return (("user", content),)


def multipl_e_messages(code_prompt: str, names: LanguageNames) -> Messages:
    return (("user", MULTIPLE_INSTRUCTION.format(display=names.display, code=code_prompt)),)


def sair_messages(template: str, equation1: str, equation2: str, *, counterexample: bool = False) -> Messages:
    """The SAIR template with both placeholder spellings filled in (and the counterexample's format, if checked)."""
    if not {m.group(1) for m in SAIR_PLACEHOLDER.finditer(template)} >= {"equation1", "equation2"}:
        raise ValueError("SAIR template lacks an {{ equation1 }} or {{ equation2 }} placeholder")
    values = {"equation1": equation1, "equation2": equation2}
    text = SAIR_PLACEHOLDER.sub(lambda m: values[m.group(1)], template)
    return (("user", text + COUNTEREXAMPLE_FORMAT if counterexample else text),)
