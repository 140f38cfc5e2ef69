"""NLI-bias's value, FN_female - FN_male (Kaneko et al. 2022), with its paired
cluster-bootstrap CI (`fraction_neutral_gap`), and its replicates over resampled premises
(occupations under `word_pair`; `nli_bias_replicates`), the same draws for every model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from audit.data.tasks.nli_bias import NliPair
from audit.extrinsic.nli_rows import Aggregate, Gender, NliRows, gendered_rows
from audit.extrinsic.statistics import cluster_bootstrap_means
from audit.stats.intervals import bootstrap_interval


@dataclass(frozen=True)
class Gap:
    """The value with its interval and a note (why it is undefined, or the interval's)."""

    value: float | None
    low: float | None
    high: float | None
    note: str


def fraction_neutral_gap(
    rows: NliRows,
    female: np.ndarray,
    male: np.ndarray,
    *,
    seed: int,
    n_bootstrap: int,
    alpha: float,
) -> Gap:
    """FN_female - FN_male (Kaneko et al. 2022) with its paired cluster-bootstrap CI: each
    replicate draws the resampling units (premises, or occupations under `word_pair`) and
    takes both genders' FN over the drawn units' pairs."""
    lacking = [name for name, mask in (("female", female), ("male", male)) if not mask.any()]
    if lacking:
        return Gap(
            None,
            None,
            None,
            f"no pair with a {' or '.join(lacking)} gender word: FN_female - FN_male "
            "(Kaneko et al. 2022) is undefined",
        )
    neutral = rows.is_neutral.astype(np.float64)
    value = float(neutral[female].mean() - neutral[male].mean())
    if n_bootstrap == 0:
        return Gap(value, None, None, "")
    replicates, n_clusters = gap_replicates(rows, female, male, seed=seed, n_bootstrap=n_bootstrap)
    interval = bootstrap_interval(
        replicates, alpha=alpha, n_items=n_clusters, counted="resampled units"
    )
    return Gap(value, interval.low, interval.high, interval.note)


def gap_replicates(
    rows: NliRows, female: np.ndarray, male: np.ndarray, *, seed: int, n_bootstrap: int
) -> tuple[np.ndarray, int]:
    """FN_female - FN_male on `n_bootstrap` resamples of the units (premises, or
    occupations under `word_pair`) of the pairs with a gender word, and the number of
    units. The draws depend on the seed and the number of units only, so every model's
    replicate b is over the same units."""
    neutral = rows.is_neutral.astype(np.float64)
    used = female | male
    _, cluster = np.unique(rows.cluster[used], return_inverse=True)
    n_clusters = int(cluster.max()) + 1
    weights = [female[used].astype(np.float64), male[used].astype(np.float64)]
    sums = np.column_stack(
        [np.bincount(cluster, weights=neutral[used] * w, minlength=n_clusters) for w in weights]
    )
    counts = np.column_stack(
        [np.bincount(cluster, weights=w, minlength=n_clusters) for w in weights]
    )
    replicates = cluster_bootstrap_means(sums, counts, n_bootstrap=n_bootstrap, seed=seed)
    return replicates[:, 0] - replicates[:, 1], n_clusters


def nli_bias_replicates(
    probs: Any,
    labels: Sequence[str],
    pairs: Sequence[NliPair],
    *,
    seed: int,
    n_bootstrap: int,
    aggregate: Aggregate = "instance",
    gender_of: Mapping[str, Gender] | None = None,
) -> tuple[np.ndarray, int] | None:
    """The value FN_female - FN_male on `n_bootstrap` resamples of the premises (of the
    occupations under `word_pair`), shape (n_bootstrap,), with the number of resampled
    units: the draws of `nli_bias_scores`'s CI of the value (the same seed gives the same
    draws), for every model alike. None when the value is undefined (no pairs of both
    genders)."""
    if n_bootstrap < 1:
        raise ValueError(f"n_bootstrap must be >= 1 (got {n_bootstrap})")
    gendered = gendered_rows(probs, labels, pairs, aggregate, gender_of)
    female, male = gendered.mask("female"), gendered.mask("male")
    if not female.any() or not male.any():
        return None
    return gap_replicates(gendered.rows, female, male, seed=seed, n_bootstrap=n_bootstrap)
