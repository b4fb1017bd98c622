"""The unbiased pass@k estimator (Chen et al. 2021), per problem, then averaged over problems."""

from __future__ import annotations

import math


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of k samples drawn without replacement from n (c correct) passes.

    Computed as 1 - prod(1 - k / arange(n - c + 1, n + 1)), the numerically stable form of
    1 - C(n - c, k) / C(n, k).
    """
    if not 0 <= c <= n or k < 1:
        raise ValueError(f"need 0 <= c <= n and k >= 1, got n={n} c={c} k={k}")
    if k > n:
        raise ValueError(f"pass@{k} is undefined with only {n} samples")
    if n - c < k:
        return 1.0
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def mean_pass_at_k(counts: list[tuple[int, int]], k: int) -> float | None:
    """Mean pass@k over problems given (n, c) each; problems with n < k are left out; None if none qualify."""
    values = [pass_at_k(n, c, k) for n, c in counts if n >= k]
    return sum(values) / len(values) if values else None
