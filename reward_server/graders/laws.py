"""Equational laws over magmas (`x = y * (x * z)`, with `*` or `◇` for the operation), checked on a finite magma.

A law holds on a magma when its two sides are equal under every assignment of elements to its variables. The check
is exact and vectorised: variable i is a numpy array along axis i, and each subterm an array over the axes of its
own variables (broadcasting), so a side costs at most n^k table look-ups and the comparison n^k values, for n
elements and k variables (16^6 = 16.7M at the limits). Laws are fully parenthesised products, as in the implication
data: `x * y * z` is refused as ambiguous.
"""

from __future__ import annotations

import dataclasses
import functools
import re

import numpy as np

MAX_VARIABLES = 6       # the most any law of the implication data has (and 16^6 values stay cheap)
MAX_CHARS = 1000
_TOKEN = re.compile(r"\s*(?:([A-Za-z][A-Za-z0-9_']*)|([*◇=()]))")

Term = str | tuple["Term", "Term"]   # a variable, or (left, right) for left * right


class LawError(ValueError):
    """The text is not a law of this grammar; the message says where."""


@dataclasses.dataclass(frozen=True)
class Law:
    text: str
    left: Term
    right: Term
    variables: tuple[str, ...]      # in order of first appearance


@dataclasses.dataclass(frozen=True)
class Failure:
    """An assignment under which a law's sides differ, and what each side is there."""

    assignment: dict[str, int]
    left: int
    right: int


@functools.lru_cache(maxsize=1 << 16)
def parse_law(text: str) -> Law:
    if len(text) > MAX_CHARS:
        raise LawError(f"longer than {MAX_CHARS} characters")
    tokens = []
    at = 0
    while at < len(text.rstrip()):
        match = _TOKEN.match(text, at)
        if match is None:
            raise LawError(f"unexpected {text[at:].strip()[:10]!r}")
        tokens.append(match.group(1) or match.group(2))
        at = match.end()
    parser = _Parser(tokens)
    left = parser.term()
    parser.expect("=")
    right = parser.term()
    if parser.at != len(tokens):
        raise LawError(f"unexpected {tokens[parser.at]!r} after the right side")
    variables = tuple(dict.fromkeys(_variables(left) + _variables(right)))
    if len(variables) > MAX_VARIABLES:
        raise LawError(f"{len(variables)} variables; at most {MAX_VARIABLES}")
    return Law(text, left, right, variables)


class _Parser:
    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.at = 0

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def expect(self, token: str) -> None:
        if self.peek() != token:
            raise LawError(f"expected {token!r}, found {self.peek() or 'the end'!r}")
        self.at += 1

    def term(self) -> Term:
        left = self.factor()
        if self.peek() not in ("*", "◇"):
            return left
        self.at += 1
        term = (left, self.factor())
        if self.peek() in ("*", "◇"):
            raise LawError("a product of three or more terms needs parentheses")
        return term

    def factor(self) -> Term:
        token = self.peek()
        if token == "(":
            self.at += 1
            term = self.term()
            self.expect(")")
            return term
        if token is None or token in "*◇=)":
            raise LawError(f"expected a variable or '(', found {token or 'the end'!r}")
        self.at += 1
        return token


def _variables(term: Term) -> list[str]:
    return [term] if isinstance(term, str) else _variables(term[0]) + _variables(term[1])


def _evaluate(term: Term, table: np.ndarray, axes: dict[str, np.ndarray]) -> np.ndarray:
    if isinstance(term, str):
        return axes[term]
    return table[_evaluate(term[0], table, axes), _evaluate(term[1], table, axes)]


def first_failure(law: Law, table: np.ndarray) -> Failure | None:
    """The first assignment (in row-major order of the variables) under which the law fails on the magma whose
    operation table is `table` (n x n, entries in [0, n)); None when it holds."""
    n, k = len(table), len(law.variables)
    axes = {name: np.arange(n).reshape([n if i == axis else 1 for i in range(k)])
            for axis, name in enumerate(law.variables)}
    left, right = _evaluate(law.left, table, axes), _evaluate(law.right, table, axes)
    differs = left != right
    if not differs.any():
        return None
    where = np.unravel_index(int(np.argmax(differs)), differs.shape)
    shape = differs.shape
    return Failure({name: int(where[axis]) for axis, name in enumerate(law.variables)},
                   int(np.broadcast_to(left, shape)[where]), int(np.broadcast_to(right, shape)[where]))
