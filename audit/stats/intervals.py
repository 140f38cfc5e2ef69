"""Percentile confidence intervals from bootstrap replicates."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PercentileInterval:
    """A percentile interval; `n_undefined` replicates had no value and were left out."""

    low: float | None
    high: float | None
    n_used: int
    n_undefined: int


def percentile_interval(replicates: np.ndarray, *, alpha: float) -> PercentileInterval:
    """The (alpha/2, 1 - alpha/2) percentiles of the finite replicates (linear interpolation).

    Replicates that are NaN (the measure was undefined on that resample) are counted and
    dropped; with no finite replicate the interval is (None, None).
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1) (got {alpha})")
    values = np.asarray(replicates, dtype=np.float64)
    finite = values[np.isfinite(values)]
    n_undefined = int(values.size - finite.size)
    if finite.size == 0:
        return PercentileInterval(None, None, 0, n_undefined)
    low, high = np.quantile(finite, [alpha / 2, 1 - alpha / 2])
    return PercentileInterval(float(low), float(high), int(finite.size), n_undefined)
