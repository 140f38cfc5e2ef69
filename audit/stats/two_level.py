"""The two-level bootstrap of a correlation across models: the models resampled (level
two), and within each model the items its value was measured on (level one).

A correlation across 12 models has two sources of noise: which models there are, and
which benchmark items each value was measured on. Resampling the models alone treats
each value as exact. Here replicate b takes the b-th item resample of every model's
value (one array of shape (B, n) per series: column j is model j's value on the item
resamples, drawn with the same seeded draws for every model, since the benchmark items
are shared) and a resample of the models drawn from the audit's seed alone, and
recomputes the correlation on it. A series without item replicates enters with its
measured values on every row: the interval then leaves its item noise out, and the
record says which series were resampled.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from audit.stats.intervals import percentile_interval
from audit.stats.power import kendall_rows, spearman_rows


def resample_indices(seed: int, n_bootstrap: int, n: int) -> np.ndarray:
    """`n_bootstrap` resamples of n models (with replacement), from the audit's seed only."""
    return np.random.default_rng(seed).integers(0, n, size=(n_bootstrap, n))


def at_models(values: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Row b of `values` (a series: (n,) values or (B, n) item replicates) at the model
    indices idx[b]: shape (B, n)."""
    if values.ndim == 1:
        return values[idx]
    return np.take_along_axis(values[: idx.shape[0]], idx, axis=1)


@dataclass(frozen=True)
class TwoLevelInterval:
    """Percentile intervals of Kendall tau-b and Spearman rho over the two-level resamples."""

    tau_low: float | None
    tau_high: float | None
    rho_low: float | None
    rho_high: float | None
    undefined: int


def two_level_interval(
    x: np.ndarray, y: np.ndarray, *, seed: int, n_bootstrap: int, alpha: float
) -> TwoLevelInterval:
    """The intervals of tau-b and rho of two series over `n_bootstrap` two-level
    resamples; `x` and `y` are (B, n) item replicates (a series without any repeats its
    values on every row), B >= n_bootstrap. Resamples without variation have no value
    and are left out (counted in `undefined`)."""
    n = x.shape[1]
    idx = resample_indices(seed, n_bootstrap, n)
    xs, ys = at_models(x, idx), at_models(y, idx)
    tau = percentile_interval(kendall_rows(xs, ys), alpha=alpha)
    rho = percentile_interval(spearman_rows(xs, ys), alpha=alpha)
    return TwoLevelInterval(tau.low, tau.high, rho.low, rho.high, tau.n_undefined)
