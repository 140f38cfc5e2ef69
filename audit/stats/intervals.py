"""Confidence intervals of measure values: the exact binomial (Clopper-Pearson) interval of
a proportion, and percentile intervals from bootstrap replicates with the rule that says
when a bootstrap interval is too thin to be shown.

Why a minimum number of items (`MIN_ITEMS_FOR_INTERVAL` = 10): a percentile bootstrap
interval is as narrow as the spread of the resampled data, which understates the
sampling spread on few items (the resampling variance of a mean is (n-1)/n times the
plug-in variance, and it uses a normal quantile where Student's t applies). For the mean
of normal data a nominal 95% percentile interval covers the truth about 60% of the time
at n = 2, 85% at n = 5, 90% at n = 10 and 93% at n = 20 (P(|T_(n-1)| < 1.96 sqrt((n-1)/n)),
confirmed by simulation); with one item every resample is the item itself and the
interval has zero width. Below 10 items the interval is therefore not printed at all
("too few items for an interval"): a wide honest statement ("no interval") beats a
narrow false one. For the same reason a zero-width interval (every resample, or at least
the central 1 - alpha of them, gave the same value) is never reported as an interval.
The bias score does not need the rule: its exact binomial interval is valid at every n.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

#: Fewest items (per group, per side for two-sample measures) a bootstrap interval needs.
MIN_ITEMS_FOR_INTERVAL = 10

#: The start of the note on a value whose bootstrap interval is withheld for its size.
TOO_FEW_ITEMS = "too few items for an interval"

#: The note on a value whose bootstrap interval would have zero width.
ZERO_WIDTH = "no interval: the bootstrap resamples all gave the same value"

CLOPPER_PEARSON = "Clopper-Pearson exact binomial"
PERCENTILE_BOOTSTRAP = "percentile bootstrap"


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
    _check_alpha(alpha)
    values = np.asarray(replicates, dtype=np.float64)
    finite = values[np.isfinite(values)]
    n_undefined = int(values.size - finite.size)
    if finite.size == 0:
        return PercentileInterval(None, None, 0, n_undefined)
    low, high = np.quantile(finite, [alpha / 2, 1 - alpha / 2])
    return PercentileInterval(float(low), float(high), int(finite.size), n_undefined)


def clopper_pearson(k: int, n: int, *, alpha: float) -> tuple[float, float]:
    """The exact (Clopper-Pearson) 1 - alpha interval of a proportion, k successes of n.

    Bounds are beta quantiles: low = B(alpha/2; k, n-k+1) (0 when k = 0), high =
    B(1-alpha/2; k+1, n-k) (1 when k = n). It contains k/n and has positive width for
    every n >= 1, and covers the true proportion with probability at least 1 - alpha.
    """
    _check_alpha(alpha)
    if n < 1 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n and n >= 1 (got k={k}, n={n})")
    low = 0.0 if k == 0 else float(stats.beta.ppf(alpha / 2, k, n - k + 1))
    high = 1.0 if k == n else float(stats.beta.ppf(1 - alpha / 2, k + 1, n - k))
    return low, high


def too_few_items(n: int, *, need: int = MIN_ITEMS_FOR_INTERVAL, counted: str = "") -> str:
    """The note of a value with fewer than `need` items: 'too few items for an interval
    (n=2, need at least 10)'; `counted` names what was counted ('benign statements')."""
    what = f" {counted}" if counted else ""
    return f"{TOO_FEW_ITEMS} (n={n}{what}, need at least {need})"


@dataclass(frozen=True)
class BootstrapInterval:
    """A percentile interval as a measure value shows it: bounds (None when withheld),
    the note to join to the value's note, and its `bootstrap` and `interval` details."""

    low: float | None
    high: float | None
    note: str
    details: dict[str, dict[str, object]]

    @property
    def withheld(self) -> bool:
        """True when the value is shown without an interval."""
        return "withheld" in self.details["interval"]


def bootstrap_interval(
    replicates: np.ndarray,
    *,
    alpha: float,
    n_items: int,
    need: int = MIN_ITEMS_FOR_INTERVAL,
    counted: str = "",
) -> BootstrapInterval:
    """The percentile interval of a value computed on `n_items` items, or none with the
    reason: fewer than `need` items, a zero-width interval, or no resample with a value.

    Details: `bootstrap` = {resamples, undefined}; `interval` = {method, level,
    min_items} plus `withheld` (the note) when there is no interval.
    """
    interval = percentile_interval(replicates, alpha=alpha)
    boot: dict[str, object] = {
        "resamples": int(np.asarray(replicates).size),
        "undefined": interval.n_undefined,
    }
    about: dict[str, object] = {
        "method": PERCENTILE_BOOTSTRAP,
        "level": 1 - alpha,
        "min_items": need,
    }
    withheld = ""
    if n_items < need:
        withheld = too_few_items(n_items, need=need, counted=counted)
    elif interval.low is None or interval.high is None:
        withheld = "no interval: no bootstrap resample had a value"
    elif is_zero_width(interval):
        withheld = ZERO_WIDTH
    if withheld:
        about["withheld"] = withheld
        return BootstrapInterval(None, None, withheld, {"bootstrap": boot, "interval": about})
    note = (
        f"{interval.n_undefined} resample(s) had no value and were left out"
        if interval.n_undefined
        else ""
    )
    return BootstrapInterval(
        interval.low, interval.high, note, {"bootstrap": boot, "interval": about}
    )


def is_zero_width(interval: PercentileInterval) -> bool:
    """True when the interval exists and its bounds coincide (up to rounding)."""
    if interval.low is None or interval.high is None:
        return False
    scale = max(1.0, abs(interval.low), abs(interval.high))
    return interval.high - interval.low <= 1e-12 * scale


def _check_alpha(alpha: float) -> None:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1) (got {alpha})")
