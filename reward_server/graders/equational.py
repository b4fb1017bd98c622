"""TRUE/FALSE verdicts on magma implications, read exactly as the SAIR Stage 1 judge reads them.

The judge (SAIRcompetition/equational-theories-stage1-judge, judge.py) decides what a response
"said"; training on any other reading would reward answers the competition scores differently.
Its rules, as reproduced here:

* Delete ``***``, ``**``, ``__`` and backticks, in that order, everywhere.
* Three kinds of candidate, strongest first; the strongest kind present wins and, within a kind,
  the candidate that starts latest wins:

  1. boxed: ``\\boxed{...}`` after one or more backslashes (``\\s*`` allowed before the brace),
     braces matched with nesting; content stripped, then up to 4 rounds of: strip
     ``" \\t\\r\\n.,;:!?$()[]"``; ``answer`` means no verdict; TRUE/FALSE is the verdict; a whole
     ``\\text{}``/``\\mathrm{}``/``\\mathbf{}``/``\\operatorname{}`` wrapper is peeled; anything else
     means no verdict.
  2. labeled: ``VERDICT`` + ``:``/``：``, or ``FINAL ANSWER``/``ANSWER``/``OUTPUT_RESULT``/``RESULT``
     + one of ``: ： = -``, then TRUE/FALSE as a whole word (``\\b`` on both sides, so ``TRUEly``
     and ``XVERDICT`` do not count); or ``\\text{ TRUE }``. A labeled match is skipped when the rest
     of its line, after leading whitespace, begins with ``or`` + whitespace (or ``or`` + the line's
     end) or with ``/`` + optional whitespace + TRUE/FALSE as a word: that is instruction text.
  3. line: the first or the last non-empty line (``str.splitlines``) is only TRUE/FALSE, optionally
     after ``FINAL ANSWER`` + separator and followed by ``.``/``!``/``?``; the last line counts
     as later than the first.

* Matching is case-insensitive with Python's Unicode rules (so ``falſe`` is FALSE, as there).

The scans below are arranged for speed (the server grades tens of thousands of verdicts a second):
labeled matches are tried only where a label word occurs, latest first; boxed and line candidates
are ruled out by cheap necessary conditions before any regex runs. They select the candidate the
judge selects; tests/graders compare both readings on many generated responses.
"""

from __future__ import annotations

import re

from reward_server.verdicts import Verdict

# "\\\\*" rather than "\\+": the same matches, but a literal first character lets `re` skip ahead.
_BOXED_START = re.compile(r"\\\\*boxed\s*\{", re.IGNORECASE)
_BRACE = re.compile(r"[{}]")
_BOXED_STRIP = " \t\r\n.,;:!?$()[]"
_BOXED_ROUNDS = 4
_WRAPPER = re.compile(r"\\(?:text|mathrm|mathbf|operatorname)\s*\{(.+)\}$", re.IGNORECASE | re.DOTALL)

# The judge's three labeled patterns as one alternation (each starts with a different letter or a
# backslash, so at most one can match at a position). Exactly one group is set in each match.
_LABELED = re.compile(
    r"\bVERDICT\s*[:：]\s*(TRUE|FALSE)\b"
    r"|\b(?:FINAL\s+ANSWER|ANSWER|OUTPUT_RESULT|RESULT)\s*[:：=-]\s*(TRUE|FALSE)\b"
    r"|\\text\s*\{\s*(TRUE|FALSE)\s*\}",
    re.IGNORECASE,
)
# A labeled match can only start at one of these words, or at "OUTPUT_" before "RESULT", or at
# "FINAL" before "ANSWER" (found as the "ANSWER" match: same end and value, and no other match can
# start in between). Finding them with str.find is ~10x faster than letting a case-insensitive
# regex try every position.
_LABEL_WORDS = ("verdict", "answer", "result", "\\text")
_OUTPUT_PREFIX = len("output_")
# str.lower() plus these three gives, character for character, what `re.IGNORECASE` treats as
# the same letter for every letter in _LABEL_WORDS (tests/graders checks every code point);
# U+0130 is also the only character whose lower() is longer than one character.
_FOLD_FIXES = {0x130: "i", 0x131: "i", 0x17F: "s"}
_SLASH_ALTERNATIVE = re.compile(r"/\s*(?:TRUE|FALSE)\b", re.IGNORECASE)

_LINE = re.compile(r"\s*(?:FINAL\s+ANSWER\s*[:：=-]\s*)?(TRUE|FALSE)\s*[.!?]*\s*", re.IGNORECASE)
_NON_SPACE = re.compile(r"\S")

_WORDS = {"TRUE": True, "FALSE": False}


def strip_markdown(text: str) -> str:
    """The judge's four replacements in its order; one whose character is absent is a no-op."""
    if "*" in text:
        text = text.replace("***", "").replace("**", "")
    if "_" in text:
        text = text.replace("__", "")
    if "`" in text:
        text = text.replace("`", "")
    return text


def _closing_braces(text: str) -> dict[int, int]:
    """Each opening brace's index -> the index of the brace that closes it (unbalanced ones are absent).

    One pass for the whole text: scanning forward from every `\\boxed{` instead costs quadratic time, and
    a degenerate response of repeated unclosed `\\boxed{` would stall the server for minutes.
    Pairing with a stack is the same as counting depth forward from each opening brace.
    """
    closing: dict[int, int] = {}
    open_at: list[int] = []
    for match in _BRACE.finditer(text):
        if match.group() == "{":
            open_at.append(match.start())
        elif open_at:
            closing[open_at.pop()] = match.start()
    return closing


def _boxed_value(content: str) -> bool | None:
    current = content.strip()
    for _ in range(_BOXED_ROUNDS):
        current = current.strip(_BOXED_STRIP)
        word = current.upper()
        if word == "ANSWER":
            return None
        if word in _WORDS:
            return _WORDS[word]
        wrapped = _WRAPPER.match(current)
        if wrapped is None:
            return None
        current = wrapped.group(1)
    return None


def _latest_boxed(text: str) -> bool | None:
    if "\\" not in text:
        return None
    starts = list(_BOXED_START.finditer(text))
    closing = _closing_braces(text) if starts else {}
    for match in reversed(starts):
        end = closing.get(match.end() - 1)
        if end is not None:
            value = _boxed_value(text[match.end():end])
            if value is not None:
                return value
    return None


def _is_instruction(text: str, end: int) -> bool:
    """True when the labeled match ending at `end` is followed by "or ..." or "/TRUE" on its line."""
    line_end = text.find("\n", end)
    after = (text[end:] if line_end < 0 else text[end:line_end]).lstrip()
    if after[:2].upper() == "OR":
        rest = after[2:]
        return not rest or rest[0].isspace()
    return _SLASH_ALTERNATIVE.match(after) is not None


def _fold(text: str) -> str:
    if not text.isascii() and ("\u0130" in text or "\u0131" in text or "\u017f" in text):
        text = text.translate(_FOLD_FIXES)
    return text.lower()


def _latest_labeled(text: str) -> bool | None:
    folded = _fold(text)
    starts = []
    for word in _LABEL_WORDS:
        at = folded.find(word)
        while at >= 0:
            starts.append(at)
            if word == "result" and at >= _OUTPUT_PREFIX:
                starts.append(at - _OUTPUT_PREFIX)
            at = folded.find(word, at + 1)
    for start in sorted(starts, reverse=True):
        match = _LABELED.match(text, start)
        if match is not None and not _is_instruction(text, match.end()):
            return _WORDS[(match.group(1) or match.group(2) or match.group(3)).upper()]
    return None


def _line_value(line: str) -> bool | None:
    match = _LINE.fullmatch(line)
    return None if match is None else _WORDS[match.group(1).upper()]


def _edge_lines(text: str) -> bool | None:
    """The last non-empty line's verdict, else the first's (the judge's line kind).

    Cheap necessary conditions come first: a verdict line starts (after whitespace) with t/T/f/F
    and ends in TRUE/FALSE before optional whitespace, punctuation and whitespace.
    """
    stripped = text.rstrip()
    if not stripped:
        return None
    tail = stripped.rstrip(".!?").rstrip()[-len("false"):]
    if _fold(tail).endswith(("true", "false")):
        value = _line_value(stripped[stripped.rfind("\n") + 1:].splitlines()[-1])
        if value is not None:
            return value
    start = _NON_SPACE.search(stripped).start()
    if stripped[start] not in "tTfF":
        return None
    end = stripped.find("\n", start)
    return _line_value(stripped[start:None if end < 0 else end].splitlines()[0])


def extract_verdict(response: str) -> bool | None:
    """The verdict the SAIR Stage 1 judge reads from `response`, or None when it reads none."""
    text = strip_markdown(response)
    for kind in (_latest_boxed, _latest_labeled, _edge_lines):
        value = kind(text)
        if value is not None:
            return value
    return None


def grade_equation(response: str, expected: bool) -> tuple[Verdict, str]:
    """(PASS | WRONG_ANSWER | NO_VERDICT, the verdict read as "TRUE"/"FALSE", or "" when none)."""
    value = extract_verdict(response)
    if value is None:
        return Verdict.NO_VERDICT, ""
    return (Verdict.PASS if value == expected else Verdict.WRONG_ANSWER), ("TRUE" if value else "FALSE")
