"""pass@k against values computed by hand from binomial coefficients."""

from __future__ import annotations

import pytest

from reward_server.evaluation.passk import mean_pass_at_k, pass_at_k


@pytest.mark.parametrize(("n", "c", "k", "expected"), [
    (5, 2, 1, 2 / 5),
    (5, 2, 2, 1 - 3 / 10),        # 1 - C(3,2)/C(5,2)
    (10, 3, 5, 1 - 21 / 252),     # 1 - C(7,5)/C(10,5)
    (4, 0, 2, 0.0),
    (4, 4, 1, 1.0),
    (4, 3, 2, 1.0),               # fewer than k failures: some draw always passes
    (200, 1, 100, 0.5),           # 1 - C(199,100)/C(200,100) = 1 - 100/200
])
def test_pass_at_k_matches_hand_computed(n: int, c: int, k: int, expected: float) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(expected)


@pytest.mark.parametrize(("n", "c", "k"), [(3, 4, 1), (3, -1, 1), (3, 1, 0), (3, 1, 4)])
def test_pass_at_k_rejects_impossible_inputs(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)


def test_mean_leaves_out_problems_with_too_few_samples() -> None:
    counts = [(4, 2), (4, 0), (1, 1)]
    assert mean_pass_at_k(counts, 1) == pytest.approx((0.5 + 0.0 + 1.0) / 3)
    assert mean_pass_at_k(counts, 2) == pytest.approx((1 - 1 / 6 + 0.0) / 2)
    assert mean_pass_at_k([(1, 1)], 2) is None
