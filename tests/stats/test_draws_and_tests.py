# mypy: disable-error-code="operator"
"""Stratified draws, percentile intervals and exact tests."""

from __future__ import annotations

import numpy as np
import pytest

from audit.stats.draws import bootstrap_draws, subsample_draws, subsample_size
from audit.stats.intervals import percentile_interval
from audit.stats.significance import mcnemar_exact, sign_test_p

STRATA = np.array([0] * 7 + [1] * 3 + [2] * 10)


def test_bootstrap_draws_stay_in_their_stratum_and_are_seeded() -> None:
    draws = bootstrap_draws(STRATA, n_resamples=200, seed=3)
    assert draws.idx.shape == (200, 20)
    assert np.array_equal(STRATA[draws.idx], np.broadcast_to(STRATA, (200, 20)))
    assert np.array_equal(draws.idx, bootstrap_draws(STRATA, n_resamples=200, seed=3).idx)
    assert not np.array_equal(draws.idx, bootstrap_draws(STRATA, n_resamples=200, seed=4).idx)


def test_subsample_draws_sizes_without_replacement_and_rate_one() -> None:
    draws = subsample_draws(STRATA, rate=0.5, repeats=30, seed=1)
    assert draws.idx.shape == (30, subsample_size(7, 0.5) + subsample_size(3, 0.5) + 5)
    for row in draws.idx:
        assert len(set(row.tolist())) == row.size
    assert np.array_equal(STRATA[draws.idx[0]], draws.strata)
    full = subsample_draws(STRATA, rate=1.0, repeats=4, seed=1)
    assert all(sorted(row.tolist()) == list(range(20)) for row in full.idx)
    assert subsample_size(3, 0.1) == 1
    with pytest.raises(ValueError, match="rate"):
        subsample_draws(STRATA, rate=0.0, repeats=1, seed=0)


def test_percentile_interval_drops_nan_and_counts_them() -> None:
    values = np.array([np.nan, *np.arange(101.0)])
    interval = percentile_interval(values, alpha=0.1)
    assert (interval.low, interval.high) == (5.0, 95.0)
    assert interval.n_undefined == 1
    assert percentile_interval(np.array([np.nan]), alpha=0.05).low is None


def test_exact_tests_by_hand() -> None:
    assert sign_test_p(9, 1) == pytest.approx(22 / 1024)
    assert sign_test_p(0, 0) is None
    result = mcnemar_exact(0, 6)  # p = 2 * (1/2)^6
    assert result.p_value == pytest.approx(2 / 64)
    assert mcnemar_exact(0, 0).p_value == 1.0
