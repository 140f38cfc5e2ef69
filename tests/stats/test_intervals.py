"""Interval helpers: the Clopper-Pearson interval against scipy and closed forms, and the
rule that withholds a bootstrap interval (too few items, zero width, no finite resample)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from audit.stats.intervals import (
    MIN_ITEMS_FOR_INTERVAL,
    TOO_FEW_ITEMS,
    ZERO_WIDTH,
    bootstrap_interval,
    clopper_pearson,
    percentile_interval,
    too_few_items,
)


@pytest.mark.parametrize("n", [1, 2, 5, 17, 1508])
@pytest.mark.parametrize("alpha", [0.05, 0.01, 0.2])
def test_clopper_pearson_matches_scipy_for_every_k(n: int, alpha: float) -> None:
    for k in sorted({0, 1, n // 2, n - 1, n}):
        low, high = clopper_pearson(k, n, alpha=alpha)
        ref = stats.binomtest(k, n).proportion_ci(confidence_level=1 - alpha, method="exact")
        assert low == pytest.approx(ref.low, abs=1e-12)
        assert high == pytest.approx(ref.high, abs=1e-12)
        assert low <= k / n <= high and high - low > 0


def test_clopper_pearson_closed_forms() -> None:
    # k = 0: [0, 1 - (alpha/2)^(1/n)]; k = n: [(alpha/2)^(1/n), 1]
    for n in (1, 2, 5):
        assert clopper_pearson(0, n, alpha=0.05) == pytest.approx((0.0, 1 - 0.025 ** (1 / n)))
        assert clopper_pearson(n, n, alpha=0.05) == pytest.approx((0.025 ** (1 / n), 1.0))
    assert clopper_pearson(1, 1, alpha=0.05) == pytest.approx((0.025, 1.0))
    # k = 1 of 2: P(X >= 1 | p) = 1 - (1-p)^2 = 0.025 -> p = 1 - sqrt(0.975), symmetric
    assert clopper_pearson(1, 2, alpha=0.05) == pytest.approx(
        (1 - 0.975**0.5, 0.975**0.5), abs=1e-12
    )


def test_clopper_pearson_rejects_bad_counts() -> None:
    with pytest.raises(ValueError):
        clopper_pearson(0, 0, alpha=0.05)
    with pytest.raises(ValueError):
        clopper_pearson(3, 2, alpha=0.05)
    with pytest.raises(ValueError):
        clopper_pearson(1, 2, alpha=1.0)


def test_bootstrap_interval_is_the_percentile_interval_from_the_minimum_on() -> None:
    reps = np.random.default_rng(0).normal(size=500)
    reps[:7] = np.nan
    shown = bootstrap_interval(reps, alpha=0.05, n_items=MIN_ITEMS_FOR_INTERVAL)
    plain = percentile_interval(reps, alpha=0.05)
    assert (shown.low, shown.high) == (plain.low, plain.high) and not shown.withheld
    assert shown.note == "7 resample(s) had no value and were left out"
    assert shown.details == {
        "bootstrap": {"resamples": 500, "undefined": 7},
        "interval": {"method": "percentile bootstrap", "level": 0.95, "min_items": 10},
    }


def test_bootstrap_interval_is_withheld_below_the_minimum_and_when_zero_width() -> None:
    reps = np.random.default_rng(0).normal(size=500)
    few = bootstrap_interval(reps, alpha=0.05, n_items=MIN_ITEMS_FOR_INTERVAL - 1)
    assert few.low is None and few.high is None and few.withheld
    assert few.note == "too few items for an interval (n=9, need at least 10)"
    assert few.details["interval"]["withheld"] == few.note
    assert too_few_items(2, counted="lines").startswith(TOO_FEW_ITEMS + " (n=2 lines")
    flat = bootstrap_interval(np.full(500, 0.3), alpha=0.05, n_items=50)
    assert flat.low is None and flat.note == ZERO_WIDTH
    # 98% of the resamples equal, 1% on either side: the central 95% is one value
    mostly = bootstrap_interval(
        np.r_[np.zeros(5), np.full(490, 1.0), np.full(5, 2.0)], alpha=0.05, n_items=50
    )
    assert mostly.low is None and mostly.note == ZERO_WIDTH
    empty = bootstrap_interval(np.full(500, np.nan), alpha=0.05, n_items=50)
    assert empty.low is None and "no bootstrap resample had a value" in empty.note
