"""The program MultiPL-E / HumanEval run for a function-style completion.

MultiPL-E generates with the row's stop tokens and runs ``prompt + completion + "\\n" + tests``.
A completion sampled elsewhere (e.g. by vLLM without those stops) may run on past the function,
so it is cut here at the earliest occurrence of any stop token, which is what generating with
them would have produced. Empty stop tokens are ignored: they would cut everything.
"""

from __future__ import annotations

from collections.abc import Sequence


def cut_at_stop_tokens(completion: str, stop_tokens: Sequence[str]) -> str:
    """`completion` up to (not including) the earliest occurrence of any non-empty stop token."""
    cut = len(completion)
    for token in stop_tokens:
        at = completion.find(token) if token else -1
        if 0 <= at < cut:
            cut = at
    return completion[:cut]


def assemble_program(prompt: str, completion: str, stop_tokens: Sequence[str], tests: str) -> str:
    """prompt + completion cut at the earliest stop token + "\\n" + tests."""
    return prompt + cut_at_stop_tokens(completion, stop_tokens) + "\n" + tests
