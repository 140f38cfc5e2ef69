"""Correlation between measures across models and variants: Pearson, Spearman, Kendall
(with p-values) and Kraskov k-NN mutual information."""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
from scipy import stats

from audit.results import CorrelationRecord, MeasureSeries
from audit.stats.mutual_information import kraskov_mi

#: Below this many models a correlation is reported as inconclusive.
MIN_MODELS = 5


def _finite(v: float | None) -> bool:
    return v is not None and math.isfinite(v)


def _number(x: float) -> float | None:
    return float(x) if x is not None and math.isfinite(x) else None


def correlate_pair(
    x: Mapping[str, float | None],
    y: Mapping[str, float | None],
    *,
    series_x: MeasureSeries,
    series_y: MeasureSeries,
    k: int = 3,
    seed: int,
    min_models: int = MIN_MODELS,
) -> CorrelationRecord:
    """Correlate two series (model -> value) over the models with a finite value in both."""
    models = [m for m in x if m in y and _finite(x[m]) and _finite(y[m])]
    n = len(models)
    base: dict[str, Any] = dict(
        x=series_x, y=series_y, models=models, n=n, conclusive=n >= min_models
    )
    inconclusive = (
        f"{n} model(s) with both values: fewer than {min_models}, no correlation can be concluded"
    )
    if n < 3:
        return CorrelationRecord(**base, note=inconclusive)
    xs = np.array([x[m] for m in models], dtype=np.float64)
    ys = np.array([y[m] for m in models], dtype=np.float64)
    if np.ptp(xs) == 0 or np.ptp(ys) == 0:
        constant = (series_x if np.ptp(xs) == 0 else series_y).label
        note = f"'{constant}' is constant across the models: correlation undefined"
        return CorrelationRecord(**{**base, "conclusive": False}, note=note)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pearson = stats.pearsonr(xs, ys)
        spearman = stats.spearmanr(xs, ys)
        kendall = stats.kendalltau(xs, ys)
    neighbours = min(k, n - 1)
    return CorrelationRecord(
        **base,
        pearson_r=_number(pearson.statistic),
        pearson_p=_number(pearson.pvalue),
        spearman_rho=_number(spearman.statistic),
        spearman_p=_number(spearman.pvalue),
        kendall_tau=_number(kendall.statistic),
        kendall_p=_number(kendall.pvalue),
        mutual_information=kraskov_mi(xs, ys, k=neighbours, seed=seed),
        mi_neighbours=neighbours,
        note="" if n >= min_models else inconclusive,
    )


def correlate_measures(
    series: Mapping[MeasureSeries, Mapping[str, float | None]],
    *,
    k: int = 3,
    seed: int,
    min_models: int = MIN_MODELS,
) -> list[CorrelationRecord]:
    """Every pair of series in `series` (measure on a dataset -> model/variant -> value),
    in input order. Models missing a value in either series are left out of that pair."""
    return [
        correlate_pair(
            series[a], series[b], series_x=a, series_y=b, k=k, seed=seed, min_models=min_models
        )
        for a, b in itertools.combinations(list(series), 2)
    ]
