"""Code extraction from a model's completion, in the two reference styles a request can choose.

Both styles read fences the way LiveCodeBench's `extract_code` does: the completion is split on
"\\n" only, and a fence line is any line that *contains* three backticks (so a language tag or
text after the fence is fine, and so is indentation). Code is the lines strictly between two
fence lines, joined with "\\n"; a line's own "\\r" stays. Fewer than two fence lines means there
is no code (None; the grader answers NO_CODE). Two adjacent fence lines give "" (code, empty).

* FIRST_BLOCK (Multi-LCB): only the text after the last ``</think>`` counts (a reasoning model's
  drafts are not its answer); the first block is taken; then every line that, stripped, is the
  prompt template's placeholder (``# YOUR CODE HERE``, or ``// YOUR CODE HERE`` for C-family
  languages) is removed, because Multi-LCB's prompt shows "```{lang}\\n# YOUR CODE HERE\\n```" and
  models echo it, and ``#`` is not a comment in most of its twelve languages.
* LAST_BLOCK (LiveCodeBench): the whole completion, between the last two fence lines (the final
  answer, after any drafts). With an odd number of fences this is what upstream does too.
* NONE: the completion is the code.
"""

from __future__ import annotations

import enum

_FENCE = "```"
_THINK_END = "</think>"
_PLACEHOLDERS = frozenset({"# YOUR CODE HERE", "// YOUR CODE HERE"})


class ExtractionStyle(enum.Enum):
    NONE = "NONE"
    FIRST_BLOCK = "FIRST_BLOCK"
    LAST_BLOCK = "LAST_BLOCK"


def _fenced_lines(text: str, *, last: bool) -> list[str] | None:
    lines = text.split("\n")
    fences = [i for i, line in enumerate(lines) if _FENCE in line]
    if len(fences) < 2:
        return None
    opening, closing = (fences[-2], fences[-1]) if last else (fences[0], fences[1])
    return lines[opening + 1:closing]


def _first_block(completion: str) -> str | None:
    lines = _fenced_lines(completion.rpartition(_THINK_END)[2], last=False)
    if lines is None:
        return None
    return "\n".join(line for line in lines if line.strip() not in _PLACEHOLDERS)


def _last_block(completion: str) -> str | None:
    lines = _fenced_lines(completion, last=True)
    return None if lines is None else "\n".join(lines)


_EXTRACTORS = {
    ExtractionStyle.NONE: lambda completion: completion,
    ExtractionStyle.FIRST_BLOCK: _first_block,
    ExtractionStyle.LAST_BLOCK: _last_block,
}


def extract_code(completion: str, style: ExtractionStyle) -> str | None:
    """The code to run, or None when the completion has none in this style."""
    return _EXTRACTORS[style](completion)
