"""The two-level bootstrap of a correlation: models resampled, and within each model its
items; with no item noise it is the models-only bootstrap, with it the interval widens."""

from __future__ import annotations

import numpy as np

from audit.stats.intervals import percentile_interval
from audit.stats.power import kendall_rows
from audit.stats.two_level import resample_indices, two_level_interval


def test_without_item_noise_it_is_the_models_only_bootstrap() -> None:
    rng = np.random.default_rng(2)
    x = rng.normal(size=12)
    y = x + rng.normal(scale=0.8, size=12)
    b = 500
    found = two_level_interval(
        np.broadcast_to(x, (b, 12)), np.broadcast_to(y, (b, 12)), seed=9, n_bootstrap=b, alpha=0.05
    )
    idx = resample_indices(9, b, 12)
    expected = percentile_interval(kendall_rows(x[idx], y[idx]), alpha=0.05)
    assert (found.tau_low, found.tau_high) == (expected.low, expected.high)


def test_item_noise_widens_the_interval() -> None:
    rng = np.random.default_rng(4)
    x = np.linspace(0, 1, 12)
    y = x + rng.normal(scale=0.2, size=12)
    b = 1000
    exact = two_level_interval(
        np.broadcast_to(x, (b, 12)), np.broadcast_to(y, (b, 12)), seed=1, n_bootstrap=b, alpha=0.05
    )
    noisy_y = y + rng.normal(scale=0.4, size=(b, 12))  # each model's value on item resamples
    noisy = two_level_interval(
        np.broadcast_to(x, (b, 12)), noisy_y, seed=1, n_bootstrap=b, alpha=0.05
    )
    assert exact.tau_low is not None and noisy.tau_low is not None
    assert noisy.tau_low < exact.tau_low
    assert noisy.tau_high is not None and exact.tau_high is not None
    assert noisy.tau_high - noisy.tau_low > exact.tau_high - exact.tau_low
