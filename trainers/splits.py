"""Train / held-out split as a pure function of (problem id, seed).

A stable hash (not Python's salted `hash()`) so the same problem lands on the same side in every process
and every run: held-out problems never leak into training, whatever the data mix or language. The hash is
of the problem's canonical id, so HumanEval's `HumanEval/0` and MultiPL-E's `HumanEval_0_has_close_elements`
(in any language) are one problem on one side.
"""

from __future__ import annotations

import hashlib

from benchmarks.humaneval import canonical_id

TRAIN = "train"
HELDOUT = "heldout"


def split_of(problem_id: str, *, seed: int, heldout_fraction: float) -> str:
    """`HELDOUT` for about `heldout_fraction` of problems, `TRAIN` for the rest."""
    if not 0.0 <= heldout_fraction <= 1.0:
        raise ValueError(f"heldout_fraction must be in [0, 1], got {heldout_fraction}")
    digest = hashlib.sha256(f"{seed}\x00{canonical_id(problem_id)}".encode()).digest()
    position = int.from_bytes(digest[:8], "big") / 2.0**64
    return HELDOUT if position < heldout_fraction else TRAIN
