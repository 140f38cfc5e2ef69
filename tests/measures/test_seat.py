"""SEAT's effect size and permutation p-value against hand computations."""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np
import pytest

from audit.measures.seat import (
    N_SAMPLES,
    associations,
    effect_size,
    permutation_p_value,
    seat_statistic,
)

# a = (1, 0), b = (0, 1); cos with x1 = (1, 0): 1 and 0, so s = 1; x2 = (3, 4) (length
# 5): 0.6 and 0.8, s = -0.2; y1 = (0, 1): s = -1; y2 = (8, 6) (length 10): s = 0.2.
X = np.array([[1.0, 0.0], [3.0, 4.0]])
Y = np.array([[0.0, 1.0], [8.0, 6.0]])
A = np.array([[1.0, 0.0]])
B = np.array([[0.0, 2.0]])


def test_associations_by_hand() -> None:
    assert associations(X, A, B) == pytest.approx([1.0, -0.2])
    assert associations(Y, A, B) == pytest.approx([-1.0, 0.2])


def test_effect_size_by_hand() -> None:
    # mean s_X - mean s_Y = 0.4 - (-0.4) = 0.8; s over X u Y: 1, -0.2, -1, 0.2, mean 0,
    # sample variance (1 + 0.04 + 1 + 0.04) / 3
    expected = 0.8 / np.sqrt(2.08 / 3)
    assert effect_size(np.array([1.0, -0.2]), np.array([-1.0, 0.2])) == pytest.approx(expected)
    assert seat_statistic(X, Y, A, B).effect_size == pytest.approx(expected)


def test_exact_p_value_by_hand() -> None:
    # the 6 halves of {1, -0.2, -1, 0.2} sum to 0.8 (observed), 0, 1.2, -1.2, 0, -0.8:
    # two are >= 0.8 (the observed one counts), so p = 2/6
    result = seat_statistic(X, Y, A, B)
    assert result.exact and result.n_partitions == 6
    assert result.p_value == pytest.approx(1 / 3)
    assert (result.n_x, result.n_y, result.n_a, result.n_b) == (2, 2, 1, 1)


def test_exact_p_value_matches_brute_force() -> None:
    rng = np.random.default_rng(3)
    s_x, s_y = rng.normal(0.1, 1, 6), rng.normal(0, 1, 6)
    pooled = list(s_x) + list(s_y)
    observed = sum(s_x)
    halves = [sum(pooled[i] for i in half) for half in combinations(range(12), 6)]
    expected = sum(1 for total in halves if total >= observed - 1e-12) / comb(12, 6)
    p_value, exact, counted = permutation_p_value(s_x, s_y)
    assert exact and counted == comb(12, 6) == 924
    assert p_value == pytest.approx(expected)


def test_every_s_equal_has_no_effect_size_and_p_one() -> None:
    same = np.ones(4)
    assert effect_size(same, same) is None
    assert permutation_p_value(same, same)[0] == 1.0


def test_exact_up_to_the_bias_bench_threshold() -> None:
    # C(18, 9) = 48,620 <= 100,000: exact; C(20, 10) = 184,756 > 100,000: sampled
    rng = np.random.default_rng(0)
    assert permutation_p_value(rng.normal(size=9), rng.normal(size=9))[1:] == (True, 48_620)
    p_value, exact, counted = permutation_p_value(rng.normal(size=10), rng.normal(size=10))
    assert not exact and counted == N_SAMPLES
    assert p_value >= 1 / N_SAMPLES


def test_sampled_p_value_is_reproducible_from_its_seed() -> None:
    rng = np.random.default_rng(5)
    s_x, s_y = rng.normal(0.2, 1, 40), rng.normal(0, 1, 40)
    first = permutation_p_value(s_x, s_y, n_samples=5_000, seed=11)
    assert permutation_p_value(s_x, s_y, n_samples=5_000, seed=11) == first
    assert permutation_p_value(s_x, s_y, n_samples=5_000, seed=12)[0] != first[0]


def test_sampled_p_value_approaches_the_exact_one() -> None:
    rng = np.random.default_rng(8)
    s_x, s_y = rng.normal(0.3, 1, 9), rng.normal(0, 1, 9)
    exact = permutation_p_value(s_x, s_y)
    sampled = permutation_p_value(s_x, s_y, n_samples=20_000, seed=1)
    assert exact[1] and not sampled[1]
    # binomial standard error at 20,000 draws is at most 0.0036
    assert sampled[0] == pytest.approx(exact[0], abs=0.015)


def test_sampled_p_counts_one_undrawn_partition() -> None:
    # X holds the largest values: no drawn partition beats it except itself, so p is
    # (1 + draws equal to the observed half) / n_samples, never 0
    s_x, s_y = np.arange(20.0, 30.0), np.arange(0.0, 10.0)
    p_value, exact, _ = permutation_p_value(s_x, s_y, n_samples=1_000, seed=0)
    assert not exact and p_value == pytest.approx(1 / 1_000)


def test_unequal_target_sets_are_refused() -> None:
    with pytest.raises(ValueError, match="equal"):
        permutation_p_value(np.ones(3), np.ones(2))
