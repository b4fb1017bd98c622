"""The benchmarks' prompt formats, as chat messages (TRL's conversational `prompt` column).

- Multi-LCB: LiveCodeBench's code-generation prompt generalised per language (system + user, a fenced
  placeholder block the model fills in; graded with the first fenced block).
- Agnostics: `# Problem` / `# Task`, the language named in the task, plus the per-language nudge the
  Agnostics configs add for low-resource languages.
- MultiPL-E: a completion prompt; the model continues the given code, which is graded as
  prompt + completion (cut at the stop tokens) + tests.
- SAIR Stage 1: the competition's template with `{{equation1}}` / `{{ equation1 }}` placeholders.
The wording is data (tables and templates here), the functions only fill them in. A language missing from a
table is named by its key: whether it can run is the server's call (an infra verdict), not the prompt's.
"""

from __future__ import annotations

import re

Messages = list[dict[str, str]]

# Multi-LCB language keys -> (display name, Markdown fence tag).
MULTILCB_LANGUAGES: dict[str, tuple[str, str]] = {
    "python": ("Python", "python"),
    "c++": ("C++", "cpp"),
    "java": ("Java", "java"),
    "c#": ("C#", "csharp"),
    "go": ("Go", "go"),
    "javascript": ("JavaScript", "javascript"),
    "typescript": ("TypeScript", "typescript"),
    "rust": ("Rust", "rust"),
    "ruby": ("Ruby", "ruby"),
    "php": ("php", "php"),
    "kotlin": ("Kotlin", "kotlin"),
    "scala": ("Scala", "scala"),
}
HASH_COMMENT_LANGUAGES = frozenset({"python", "ruby"})

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
    "### Question:\n{question}\n\n### Format: {format}\n```{fence}\n{comment} YOUR CODE HERE\n```\n\n"
    "### Answer: (use the provided format with backticks)\n\n"
)

# Agnostics language keys -> (name used in the task line, nudge appended for low-resource languages).
AGNOSTICS_LANGUAGES: dict[str, tuple[str, str]] = {
    "python": ("Python 3", ""),
    "c++": ("C++", ""),
    "cpp": ("C++", ""),
    "c": ("C", ""),
    "java": ("Java", ""),
    "rust": ("Rust", ""),
    "lua": ("Lua", "Target Lua 5.1 as run by LuaJIT."),
    "julia": ("Julia", "Target Julia 1.11."),
    "r": ("R", "Target R 4. Read standard input with `readLines(con = file(\"stdin\"))` and write the "
               "answer with `cat`, not `print`."),
    "ocaml": ("OCaml", "Target OCaml 5. Integer and float arithmetic use different operators (`+` vs `+.`); "
                       "convert explicitly with `float_of_int` / `int_of_float`."),
    "fortran": ("Fortran", "Target Fortran 90. Start every scope with `implicit none`; arrays are 1-based "
                           "unless declared otherwise; read a count before allocating and reading an array."),
}
AGNOSTICS_TEMPLATE = (
    "# Problem\n{question}\n\n# Task\n"
    "Provide a full implementation of the specified program in a Markdown code block.\n"
    "Use the following programming language: {language}\n"
)

# MultiPL-E language keys -> display name.
MULTIPLE_LANGUAGES: dict[str, str] = {
    "py": "Python", "cpp": "C++", "java": "Java", "js": "JavaScript", "ts": "TypeScript", "rs": "Rust",
    "go": "Go", "lua": "Lua", "r": "R", "jl": "Julia", "ml": "OCaml", "rkt": "Racket", "sh": "Bash",
    "cs": "C#", "d": "D", "pl": "Perl", "php": "PHP", "rb": "Ruby", "scala": "Scala", "swift": "Swift",
    "hs": "Haskell",
}
MULTIPLE_INSTRUCTION = (
    "Continue the following {display} program from exactly where it stops. Reply with only the code that "
    "comes next: do not repeat the given code and do not use Markdown fences.\n\n{code}"
)

SAIR_PLACEHOLDER = re.compile(r"\{\{\s*(equation1|equation2)\s*\}\}")


def multilcb_messages(question: str, language: str) -> Messages:
    display, fence = MULTILCB_LANGUAGES.get(language, (language, language))
    comment = "#" if language in HASH_COMMENT_LANGUAGES else "//"
    user = MULTILCB_USER.format(question=question, format=MULTILCB_FORMAT.format(fence=fence), fence=fence,
                                comment=comment)
    return [{"role": "system", "content": MULTILCB_SYSTEM.format(display=display)},
            {"role": "user", "content": user}]


def agnostics_messages(question: str, language: str) -> Messages:
    name, nudge = AGNOSTICS_LANGUAGES.get(language, (language, ""))
    content = AGNOSTICS_TEMPLATE.format(question=question, language=name)
    if nudge:
        content += nudge + "\n"
    return [{"role": "user", "content": content}]


def multipl_e_messages(code_prompt: str, language: str) -> Messages:
    display = MULTIPLE_LANGUAGES.get(language, language)
    return [{"role": "user", "content": MULTIPLE_INSTRUCTION.format(display=display, code=code_prompt)}]


def sair_messages(template: str, equation1: str, equation2: str) -> Messages:
    """The SAIR template with both placeholder spellings filled in."""
    if not {m.group(1) for m in SAIR_PLACEHOLDER.finditer(template)} >= {"equation1", "equation2"}:
        raise ValueError("SAIR template lacks an {{ equation1 }} or {{ equation2 }} placeholder")
    values = {"equation1": equation1, "equation2": equation2}
    return [{"role": "user", "content": SAIR_PLACEHOLDER.sub(lambda m: values[m.group(1)], template)}]

