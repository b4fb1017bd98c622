"""Argument types the subcommands share."""

from __future__ import annotations

import argparse


def positive_int(text: str) -> int:
    """An integer >= 1 (a count of samples, batches, slots); an argparse error names what is wrong."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1: {text!r}")
    return value


def positive_ints(text: str) -> tuple[int, ...]:
    """`1,10,100` -> (1, 10, 100); an argparse error names what is wrong."""
    try:
        values = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers like 1,10: {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected integers >= 1: {text!r}")
    return values
