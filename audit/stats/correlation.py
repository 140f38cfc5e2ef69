"""Correlation between measures across models and variants: Pearson, Spearman, Kendall
(with p-values; Spearman's exact by permutation up to 8 models) and Kraskov k-NN mutual
information, the p-values of each family of tests
corrected for their number (Holm by default, Benjamini-Hochberg as an option).

A correlation is conclusive only when its Kendall test could reach significance at alpha
after the correction at all: with n models the exact two-sided test cannot go below 2/n!,
and Holm multiplies the smallest p-value of m tests by m. Below that, whatever the values,
no correlation can be concluded (`audit.stats.multiple_testing`).
"""

from __future__ import annotations

import functools
import itertools
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from scipy import stats

from audit.results import CorrelationRecord, MeasureSeries
from audit.stats.multiple_testing import (
    CORRECTION_NAMES,
    Correction,
    adjust_pvalues,
    min_corrected_p,
    min_kendall_p,
)
from audit.stats.mutual_information import kraskov_mi

#: Fewer models with both values than this: no test is computed at all.
MIN_TESTED = 3
#: Up to this many models the Spearman p-value is exact (every permutation, 8! = 40,320);
#: scipy's t approximation gives p = 0 for a perfect ranking of 4 models (exact: 1/12).
EXACT_SPEARMAN_UP_TO = 8


def _finite(v: float | None) -> bool:
    return v is not None and math.isfinite(v)


def _number(x: float) -> float | None:
    return float(x) if x is not None and math.isfinite(x) else None


def exact_spearman_p(xs: np.ndarray, ys: np.ndarray) -> float:
    """Two-sided exact permutation p-value of Spearman's rho: the share of the n! pairings
    of the y ranks with the x ranks whose |rho| is at least the observed one (ties keep
    their average ranks)."""
    cx = stats.rankdata(xs)
    cy = stats.rankdata(ys)
    cx, cy = cx - cx.mean(), cy - cy.mean()
    scale = math.sqrt(float(cx @ cx) * float(cy @ cy))
    rhos = np.abs(cy[_pairings(len(cx))] @ cx) / scale
    observed = abs(float(cx @ cy)) / scale
    return float(np.mean(rhos >= observed - 1e-12))


@functools.cache
def _pairings(n: int) -> np.ndarray:
    """Every permutation of range(n), one per row."""
    return np.array(list(itertools.permutations(range(n))), dtype=np.intp)


def correlate_pair(
    x: Mapping[str, float | None],
    y: Mapping[str, float | None],
    *,
    series_x: MeasureSeries,
    series_y: MeasureSeries,
    k: int = 3,
    seed: int,
) -> CorrelationRecord:
    """Correlate two series (model -> value) over the models with a finite value in both.
    The record is uncorrected (`correct_family` adds the corrected p-values and decides
    `conclusive`)."""
    models = [m for m in x if m in y and _finite(x[m]) and _finite(y[m])]
    n = len(models)
    base: dict[str, Any] = dict(x=series_x, y=series_y, models=models, n=n, conclusive=False)
    if n < MIN_TESTED:
        note = f"{n} model(s) with both values: too few for any test of a correlation"
        return CorrelationRecord(**base, note=note)
    xs = np.array([x[m] for m in models], dtype=np.float64)
    ys = np.array([y[m] for m in models], dtype=np.float64)
    if np.ptp(xs) == 0 or np.ptp(ys) == 0:
        constant = (series_x if np.ptp(xs) == 0 else series_y).label
        note = f"'{constant}' is constant across the models: correlation undefined"
        return CorrelationRecord(**base, note=note)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pearson = stats.pearsonr(xs, ys)
        spearman = stats.spearmanr(xs, ys)
        kendall = stats.kendalltau(xs, ys)
    spearman_p = exact_spearman_p(xs, ys) if n <= EXACT_SPEARMAN_UP_TO else _number(spearman.pvalue)
    neighbours = min(k, n - 1)
    return CorrelationRecord(
        **base,
        pearson_r=_number(pearson.statistic),
        pearson_p=_number(pearson.pvalue),
        spearman_rho=_number(spearman.statistic),
        spearman_p=spearman_p,
        kendall_tau=_number(kendall.statistic),
        kendall_p=_number(kendall.pvalue),
        mutual_information=kraskov_mi(xs, ys, k=neighbours, seed=seed),
        mi_neighbours=neighbours,
    )


def correct_family(
    records: Sequence[CorrelationRecord],
    *,
    family: str,
    correction: Correction,
    alpha: float,
) -> list[CorrelationRecord]:
    """The records of one family of tests with each coefficient's p-values corrected over
    the family, the Kendall floor (the smallest corrected p attainable with each record's
    n) and `conclusive` (a test, and a floor at or below alpha)."""
    corrected = {
        name: adjust_pvalues([getattr(r, f"{name}_p") for r in records], correction)
        for name in ("pearson", "spearman", "kendall")
    }
    m = sum(r.kendall_p is not None for r in records)
    out = []
    for i, r in enumerate(records):
        tested = r.kendall_p is not None
        floor = min_corrected_p(min_kendall_p(r.n), m, correction) if tested else None
        conclusive = floor is not None and floor <= alpha
        note = r.note
        if tested and not conclusive:
            note = (
                f"{r.n} models, {m} test(s) corrected by {CORRECTION_NAMES[correction]}: the "
                f"smallest attainable corrected Kendall p is {floor:.3g} > alpha {alpha:g}, so "
                "no correlation can be concluded whatever the values"
            )
        out.append(
            r.model_copy(
                update={
                    "correction": correction,
                    "test_family": family,
                    "family_size": m,
                    "pearson_p_corrected": corrected["pearson"][i],
                    "spearman_p_corrected": corrected["spearman"][i],
                    "kendall_p_corrected": corrected["kendall"][i],
                    "kendall_p_floor": floor,
                    "alpha": alpha,
                    "conclusive": conclusive,
                    "note": note,
                }
            )
        )
    return out


def correlate_measures(
    series: Mapping[MeasureSeries, Mapping[str, float | None]],
    *,
    seed: int,
    alpha: float = 0.05,
    correction: Correction = "holm",
    family_of: Callable[[MeasureSeries, MeasureSeries], str] = lambda x, y: "all",
    k: int = 3,
) -> list[CorrelationRecord]:
    """Every pair of series in `series` (measure on a dataset -> model/variant -> value)
    with at least two models in common, in input order; models missing a value in either
    series are left out of that pair. Each family of pairs (`family_of`) is corrected on
    its own."""
    records = [
        correlate_pair(series[a], series[b], series_x=a, series_y=b, k=k, seed=seed)
        for a, b in itertools.combinations(list(series), 2)
        if len([m for m in series[a] if m in series[b]]) >= 2
    ]
    families: dict[str, list[int]] = {}
    for i, r in enumerate(records):
        families.setdefault(family_of(r.x, r.y), []).append(i)
    out: list[CorrelationRecord] = list(records)
    for family, members in families.items():
        fixed = correct_family(
            [records[i] for i in members], family=family, correction=correction, alpha=alpha
        )
        for i, record in zip(members, fixed, strict=True):
            out[i] = record
    return out
