"""Equational implication problems sampled from the full 4694 x 4694 outcome matrix.

`outcomes.json` is 500 MB of JSON strings; parsing it with `json` costs ~3 GB of Python objects. The matrix is
instead decoded straight from the bytes into one int8 per pair (True / False / unknown), about 22 MB.
Sampling is balanced TRUE/FALSE and reproducible by seed; laws are written with `*` for `◇`, as SAIR does.
An implication becomes a Problem through a SAIR Stage 1 style prompt template (benchmarks.prompts), carrying its
laws, so that a FALSE answer's counterexample can be checked when one is required.
"""

from __future__ import annotations

import functools
import json
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks import prompts
from benchmarks.problem import Problem

OUTCOMES_ZIP = "equational/2024-11-10-outcomes.json.zip"
EQUATIONS_TXT = "equational/equations.txt"
NUM_LAWS = 4694
BENCHMARK = "equational"

TRUE, FALSE, UNKNOWN = 1, 0, -1
# Every status in the matrix, as it appears quoted in the JSON, and what it means.
STATUS_CODES: dict[bytes, int] = {
    b"explicit_proof_true": TRUE,
    b"implicit_proof_true": TRUE,
    b"explicit_proof_false": FALSE,
    b"implicit_proof_false": FALSE,
    b"explicit_conjecture_false": FALSE,
    b"implicit_conjecture_false": FALSE,
    b"unknown": UNKNOWN,
}
_BYTE_OF = {TRUE: b"T", FALSE: b"F", UNKNOWN: b"U"}


@dataclass(frozen=True)
class EquationalProblem:
    eq1_id: int  # 1-based law numbers, as in equations.txt and the SAIR problems
    eq2_id: int
    equation1: str
    equation2: str
    answer: bool

    @property
    def problem_id(self) -> str:
        return f"eq{self.eq1_id}->eq{self.eq2_id}"

    def problem(self, template: str, benchmark: str = BENCHMARK, *, require_counterexample: bool = False) -> Problem:
        """This implication, asked with a prompt template holding {{ equation1 }} and {{ equation2 }}; with
        `require_counterexample`, a right FALSE must show a magma (the prompt says how to write it)."""
        return Problem(id=self.problem_id, benchmark=benchmark, language="",
                       messages=prompts.sair_messages(template, self.equation1, self.equation2,
                                                      counterexample=require_counterexample),
                       expected=self.answer, equation1=self.equation1, equation2=self.equation2,
                       require_counterexample=require_counterexample)


def load_laws(root: Path) -> list[str]:
    """The 4694 laws, line i = law i, with `*` for the magma operation."""
    laws = (root / EQUATIONS_TXT).read_text(encoding="utf-8").splitlines()
    if len(laws) != NUM_LAWS:
        raise ValueError(f"{root / EQUATIONS_TXT}: expected {NUM_LAWS} laws, found {len(laws)}")
    return [law.replace("◇", "*") for law in laws]


@functools.lru_cache(maxsize=2)
def load_outcomes(root: Path) -> np.ndarray:
    """int8 matrix; [i, j] says whether law i+1 implies law j+1 (TRUE, FALSE or UNKNOWN)."""
    with zipfile.ZipFile(root / OUTCOMES_ZIP) as archive:
        raw = archive.read("outcomes.json")
    names_at = raw.index(b"[", raw.index(b'"equations"'))
    names = json.loads(raw[names_at:raw.index(b"]", names_at) + 1])
    if names != [f"Equation{k}" for k in range(1, NUM_LAWS + 1)]:
        raise ValueError(f"{root / OUTCOMES_ZIP}: rows are not laws 1..{NUM_LAWS} in order")
    # statuses hold no brackets, so the matrix `[[...],...,[...]]` ends at the first `]]` after its start
    start = raw.index(b"[", raw.index(b'"outcomes"'))
    body = raw[start:raw.index(b"]]", start) + 2]
    del raw
    for status, code in STATUS_CODES.items():
        body = body.replace(b'"' + status + b'"', _BYTE_OF[code])
    flat = body.translate(None, b"[], \n\r\t")
    if len(flat) != NUM_LAWS * NUM_LAWS or flat.translate(None, b"TFU"):
        raise ValueError(f"{root / OUTCOMES_ZIP}: outcome matrix is not {NUM_LAWS}x{NUM_LAWS} known statuses")
    letters = np.frombuffer(flat, dtype=np.uint8)
    matrix = np.full(letters.shape, UNKNOWN, dtype=np.int8)
    matrix[letters == ord("T")] = TRUE
    matrix[letters == ord("F")] = FALSE
    return matrix.reshape(NUM_LAWS, NUM_LAWS)


def sample_problems(root: Path, count: int, *, seed: int) -> list[EquationalProblem]:
    """`count` distinct pairs (i != j), half TRUE and half FALSE (TRUE gets the odd one), fixed by `seed`."""
    matrix = load_outcomes(root)
    laws = load_laws(root)
    rng = np.random.default_rng(seed)
    wanted = {True: (count + 1) // 2, False: count // 2}
    chosen: dict[tuple[int, int], bool] = {}
    while any(wanted.values()):
        rows = rng.integers(0, NUM_LAWS, size=4 * count + 16)
        cols = rng.integers(0, NUM_LAWS, size=rows.size)
        for i, j in zip(rows.tolist(), cols.tolist(), strict=True):
            outcome = int(matrix[i, j])
            if i == j or outcome == UNKNOWN or (i, j) in chosen:
                continue
            answer = outcome == TRUE
            if wanted[answer]:
                wanted[answer] -= 1
                chosen[(i, j)] = answer
    return [EquationalProblem(i + 1, j + 1, laws[i], laws[j], answer) for (i, j), answer in chosen.items()]


def problems(implications: Iterable[EquationalProblem], template: str, *,
             require_counterexample: bool = False) -> list[Problem]:
    return [implication.problem(template, require_counterexample=require_counterexample)
            for implication in implications]
