"""A slow, literal reading of the SAIR Stage 1 judge's rules, to check the fast grader against.

Written straight from the rules (docs/grading.md, "The reference rules in detail"): every candidate of
every kind is collected with plain `re.finditer` / `str.splitlines`, then the strongest kind
wins and, within it, the candidate starting latest. No shortcuts, so the fast code's shortcuts
(combined patterns, keyword pre-search, prefilters) are what the comparison tests.
"""

from __future__ import annotations

import re

BOXED, LABELED, LINE = 3, 2, 1

_BOXED_START = re.compile(r"\\+boxed\s*\{", re.IGNORECASE)
_WRAPPER = re.compile(r"^\\(?:text|mathrm|mathbf|operatorname)\s*\{(.+)\}$", re.IGNORECASE | re.DOTALL)
_LABEL_PATTERNS = (
    re.compile(r"\bVERDICT\s*[:：]\s*(TRUE|FALSE)\b", re.IGNORECASE),
    re.compile(r"\b(?:FINAL\s+ANSWER|ANSWER|OUTPUT_RESULT|RESULT)\s*[:：=-]\s*(TRUE|FALSE)\b", re.IGNORECASE),
    re.compile(r"\\text\s*\{\s*(TRUE|FALSE)\s*\}", re.IGNORECASE),
)
_LINE = re.compile(r"^\s*(?:FINAL\s+ANSWER\s*[:：=-]\s*)?(TRUE|FALSE)\s*[.!?]*\s*$", re.IGNORECASE)


def _word(token: str) -> bool | None:
    return {"TRUE": True, "FALSE": False}.get(token.upper())


def _boxed(content: str) -> bool | None:
    current = content.strip()
    for _ in range(4):
        current = current.strip(" \t\r\n.,;:!?$()[]")
        if current.upper() == "ANSWER":
            return None
        if _word(current) is not None:
            return _word(current)
        wrapped = _WRAPPER.match(current)
        if not wrapped:
            return None
        current = wrapped.group(1)
    return None


def _instruction(text: str, end: int) -> bool:
    after = text[end:].split("\n", 1)[0].lstrip()
    if after[:2].upper() == "OR":
        return len(after) == 2 or after[2].isspace()
    return after.startswith("/") and re.match(r"(TRUE|FALSE)\b", after[1:].lstrip(), re.IGNORECASE) is not None


def candidates(response: str) -> list[tuple[int, int, bool]]:
    """Every (kind, start, value) the rules find in `response`."""
    text = response.replace("***", "").replace("**", "").replace("__", "").replace("`", "")
    found = []
    for match in _BOXED_START.finditer(text):
        depth, end = 1, None
        for i in range(match.end(), len(text)):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                end = i
                break
        if end is not None and (value := _boxed(text[match.end():end])) is not None:
            found.append((BOXED, match.start(), value))
    for pattern in _LABEL_PATTERNS:
        for match in pattern.finditer(text):
            if not _instruction(text, match.end()):
                found.append((LABELED, match.start(), _word(match.group(1))))
    lines = [line for line in text.splitlines() if line.strip()]
    for line, start in ((lines[:1], 0), (lines[-1:], len(text))):
        if line and (match := _LINE.match(line[0])):
            found.append((LINE, start, _word(match.group(1))))
    return found


def read_verdict(response: str) -> bool | None:
    found = candidates(response)
    if not found:
        return None
    return max(found, key=lambda c: (c[0], c[1]))[2]
