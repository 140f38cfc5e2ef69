"""Statistics shared by the extrinsic measures: the cluster bootstrap of a ratio of sums
(STS-bias resamples templates, NLI-bias premises or occupations) and the correlation of
a per-occupation value with the share of women in the occupation (STS-bias, BiasBios)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping

import numpy as np
from scipy import stats

from audit.results import PctFemaleCorrelation

#: Replicate rows drawn at once by `cluster_bootstrap_means` are capped so that one chunk
#: holds at most this many indices.
_CHUNK_ELEMENTS = 1_000_000


def cluster_bootstrap_means(
    sums: np.ndarray, counts: np.ndarray, *, n_bootstrap: int, seed: int
) -> np.ndarray:
    """Bootstrap replicates of a ratio of sums over clusters: each replicate draws as many
    clusters as there are, with replacement, and returns sum(sums) / sum(counts) over the
    drawn ones. `sums` is (C,) or (C, k); the result is (n_bootstrap,) or
    (n_bootstrap, k). `counts` is (C,), one denominator for every column, or (C, k), a
    denominator per column (NaN where a replicate drew none of a column's items). Seeded;
    drawn in fixed-size chunks so memory stays bounded."""
    sums = np.asarray(sums, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.float64)
    n_clusters = counts.shape[0]
    if n_clusters < 1:
        raise ValueError("no clusters to resample")
    flat = sums.ndim == 1
    table = sums[:, None] if flat else sums
    denominators = counts[:, None] if counts.ndim == 1 else counts
    if denominators.shape[1] not in (1, table.shape[1]) or sums.shape[0] != n_clusters:
        raise ValueError(
            f"sums {sums.shape} and counts {counts.shape} do not match: expected counts of "
            "shape (C,) or the shape of sums"
        )
    rng = np.random.default_rng(seed)
    out = np.empty((n_bootstrap, table.shape[1]), dtype=np.float64)
    rows = max(1, _CHUNK_ELEMENTS // n_clusters)
    for start in range(0, n_bootstrap, rows):
        stop = min(n_bootstrap, start + rows)
        idx = rng.integers(0, n_clusters, size=(stop - start, n_clusters))
        total = denominators[idx].sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start:stop] = table[idx].sum(axis=1) / total
    return out[:, 0] if flat else out


def correlate_with_share(
    values: Mapping[str, float | None],
    shares: Mapping[str, float | None],
    *,
    x: str,
    source: str,
) -> PctFemaleCorrelation:
    """Pearson and Spearman correlation (with p-values) of `values` and `shares` over the
    keys with a finite number in both; None where it is undefined (fewer than 3 keys, or a
    constant side), with a note saying why."""
    keys = [
        k
        for k, v in values.items()
        if v is not None
        and math.isfinite(v)
        and shares.get(k) is not None
        and math.isfinite(float(shares[k]))  # type: ignore[arg-type]
    ]
    n = len(keys)
    base = PctFemaleCorrelation(x=x, source=source, n=n)
    if n < 3:
        return base.model_copy(
            update={"note": f"{n} occupation(s) with both values: need at least 3"}
        )
    xs = np.array([values[k] for k in keys], dtype=np.float64)
    ys = np.array([shares[k] for k in keys], dtype=np.float64)
    if np.ptp(xs) == 0 or np.ptp(ys) == 0:
        side = x if np.ptp(xs) == 0 else "the share of women"
        return base.model_copy(update={"note": f"{side} is constant: correlation undefined"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pearson = stats.pearsonr(xs, ys)
        spearman = stats.spearmanr(xs, ys)
    return base.model_copy(
        update={
            "pearson_r": _number(pearson.statistic),
            "pearson_p": _number(pearson.pvalue),
            "spearman_rho": _number(spearman.statistic),
            "spearman_p": _number(spearman.pvalue),
        }
    )


def _number(x: float) -> float | None:
    value = float(x)
    return value if math.isfinite(value) else None
