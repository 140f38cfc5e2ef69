"""Correlation between measures across models and variants: Pearson, Spearman, Kendall
(with p-values; Spearman's exact by permutation up to 8 models) and Kraskov k-NN mutual
information, the p-values of each family of tests
corrected for their number (Holm by default, Benjamini-Hochberg as an option).

A correlation table is conclusive only when its Kendall test had the target power (0.8)
at the effect size the spec names (a population tau, 0.5 by default) after the family's
correction (`audit.stats.power`): with 12 models and 24 tests under Holm, |tau| must
reach 0.67 to be significant and a true tau of 0.5 is found 19% of the time, so "no
significant correlation" says little. The floor (with n models the exact two-sided test
cannot go below 2/n!, and Holm multiplies the smallest p-value of m tests by m) is kept
too (`audit.stats.multiple_testing`).

Pairs that are one by construction (identical series, one a rescaling of the other, two
measures computed from the same scores' Gaussian fits) are marked `trivial`: shown, but
not tests of the family and never counted as findings. With bootstrap resamples, each
pair gets a two-level bootstrap interval of tau and rho (`audit.stats.two_level`).
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

from audit.results import CorrelationRecord, DetectionLimit, MeasureSeries
from audit.stats.multiple_testing import (
    CORRECTION_NAMES,
    Correction,
    adjust_pvalues,
    min_corrected_p,
    min_kendall_p,
)
from audit.stats.mutual_information import kraskov_mi
from audit.stats.power import detection_limit
from audit.stats.two_level import two_level_interval

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
    effect_size: float = 0.5,
    target_power: float = 0.8,
    seed: int = 0,
) -> list[CorrelationRecord]:
    """The records of one family of tests with each coefficient's p-values corrected over
    the family, the Kendall floor (the smallest corrected p attainable with each record's
    n), the detection limit (`audit.stats.power`) and `conclusive` (the Kendall test had
    `target_power` at `effect_size`). Records marked `trivial` (a pair that is one by
    construction) are not tests of the family: they keep their raw p-values only."""
    members = [i for i, r in enumerate(records) if not r.trivial]
    corrected = {
        name: adjust_pvalues([getattr(records[i], f"{name}_p") for i in members], correction)
        for name in ("pearson", "spearman", "kendall")
    }
    position = {i: j for j, i in enumerate(members)}
    m = sum(records[i].kendall_p is not None for i in members)
    out = []
    for i, r in enumerate(records):
        update: dict[str, Any] = {
            "correction": correction,
            "test_family": family,
            "family_size": m,
            "alpha": alpha,
            "conclusive": False,
        }
        if i not in position or r.kendall_p is None:
            out.append(r.model_copy(update=update))
            continue
        j = position[i]
        floor = min_corrected_p(min_kendall_p(r.n), m, correction)
        detection = detection_limit(
            test="kendall",
            n=r.n,
            family_size=m,
            correction=correction,
            alpha=alpha,
            effect_size=effect_size,
            target_power=target_power,
            seed=seed,
        )
        note = r.note
        if not detection.powered:
            note = "; ".join(filter(None, [note, underpowered_note(detection, floor)]))
        update.update(
            {
                "pearson_p_corrected": corrected["pearson"][j],
                "spearman_p_corrected": corrected["spearman"][j],
                "kendall_p_corrected": corrected["kendall"][j],
                "kendall_p_floor": floor,
                "conclusive": detection.powered,
                "detection": detection,
                "note": note,
            }
        )
        out.append(r.model_copy(update=update))
    return out


def underpowered_note(detection: DetectionLimit, floor: float) -> str:
    """Why a non-significant result of this test says little (`floor`: the smallest
    corrected Kendall p-value attainable)."""
    method = CORRECTION_NAMES.get(detection.correction or "", "no correction")
    critical = detection.critical_kendall_tau
    reach = (
        f"|tau| must reach {critical:.2f} to be significant"
        if critical is not None
        else f"the smallest attainable corrected Kendall p is {floor:.3g} > alpha "
        f"{detection.alpha:g}, so no tau can reach significance"
    )
    return (
        f"{detection.n} models, {detection.family_size} test(s) corrected by {method}: "
        f"{reach}, so the test had {detection.power_at_effect:.0%} power at tau "
        f"{detection.effect_size:g} and could not have detected a correlation of that "
        "strength"
    )


def identical_groups(
    series: Mapping[MeasureSeries, Mapping[str, float | None]],
) -> dict[MeasureSeries, MeasureSeries]:
    """Each series -> the first series with the same value on every model (itself when
    none came before): one series under two names, counted once."""
    first: dict[MeasureSeries, MeasureSeries] = {}
    seen: list[MeasureSeries] = []
    for key, values in series.items():
        twin = next((s for s in seen if _same_values(series[s], values)), None)
        first[key] = key if twin is None else twin
        if twin is None:
            seen.append(key)
    return first


def _same_values(a: Mapping[str, float | None], b: Mapping[str, float | None]) -> bool:
    if set(a) != set(b):
        return False
    for model, x in a.items():
        y = b[model]
        if (x is None) != (y is None):
            return False
        if x is not None and y is not None and not math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-12):
            return False
    return True


def trivial_reason(
    record: CorrelationRecord,
    *,
    first: Mapping[MeasureSeries, MeasureSeries],
    related: Callable[[MeasureSeries, MeasureSeries], str],
) -> str:
    """Why a pair is no finding by construction ('' when it is one)."""
    x, y = record.x, record.y
    if first[x] == first[y]:
        return f"'{x.label}' and '{y.label}' have the same value on every model: one series"
    if first[x] != x or first[y] != y:
        twin = f"'{first[x].label}' with '{first[y].label}'"
        return f"the same series as {twin} under another name: counted once, there"
    same_scores = x.scorer is not None and (x.dataset, x.scorer) == (y.dataset, y.scorer)
    if same_scores and record.pearson_r is not None and abs(record.pearson_r) >= 1 - 1e-9:
        return (
            "one series is an exact rescaling of the other, from the same scores (|Pearson r| "
            "= 1 on these models)"
        )
    return related(x, y)


def correlate_measures(
    series: Mapping[MeasureSeries, Mapping[str, float | None]],
    *,
    seed: int,
    alpha: float = 0.05,
    correction: Correction = "holm",
    family_of: Callable[[MeasureSeries, MeasureSeries], str] = lambda x, y: "all",
    related: Callable[[MeasureSeries, MeasureSeries], str] = lambda x, y: "",
    replicates: Mapping[MeasureSeries, Mapping[str, np.ndarray]] | None = None,
    n_bootstrap: int = 0,
    effect_size: float = 0.5,
    target_power: float = 0.8,
    k: int = 3,
) -> list[CorrelationRecord]:
    """Every pair of series in `series` (measure on a dataset -> model/variant -> value)
    with at least two models in common, in input order; models missing a value in either
    series are left out of that pair. Pairs that are one by construction (identical
    series, an exact rescaling, or `related` says why) are marked `trivial` and left out
    of the correction. Each family of pairs (`family_of`) is corrected on its own. With
    `n_bootstrap`, every pair gets a two-level bootstrap interval of tau and rho
    (`audit.stats.two_level`): the models resampled, and within each the items of every
    series `replicates` holds (each model's value on the same item resamples)."""
    first = identical_groups(series)
    records = []
    for a, b in itertools.combinations(list(series), 2):
        if len([m for m in series[a] if m in series[b]]) < 2:
            continue
        record = correlate_pair(series[a], series[b], series_x=a, series_y=b, k=k, seed=seed)
        why = trivial_reason(record, first=first, related=related)
        if n_bootstrap > 0 and record.kendall_tau is not None:
            record = record.model_copy(
                update=two_level_update(
                    record,
                    series,
                    replicates or {},
                    seed=seed,
                    n_bootstrap=n_bootstrap,
                    alpha=alpha,
                )
            )
        records.append(record.model_copy(update={"trivial": why}) if why else record)
    families: dict[str, list[int]] = {}
    for i, r in enumerate(records):
        families.setdefault(family_of(r.x, r.y), []).append(i)
    out: list[CorrelationRecord] = list(records)
    for family, members in families.items():
        fixed = correct_family(
            [records[i] for i in members],
            family=family,
            correction=correction,
            alpha=alpha,
            effect_size=effect_size,
            target_power=target_power,
            seed=seed,
        )
        for i, record in zip(members, fixed, strict=True):
            out[i] = record
    return out


def two_level_update(
    record: CorrelationRecord,
    series: Mapping[MeasureSeries, Mapping[str, float | None]],
    replicates: Mapping[MeasureSeries, Mapping[str, np.ndarray]],
    *,
    seed: int,
    n_bootstrap: int,
    alpha: float,
) -> dict[str, Any]:
    """The record's two-level bootstrap intervals of tau and rho, and which series' items
    they resample."""
    models = record.models
    columns = []
    resampled = []
    for s in (record.x, record.y):
        reps = replicates.get(s, {})
        if models and all(m in reps for m in models):
            columns.append(np.stack([reps[m] for m in models], axis=1))
            resampled.append(s.label)
        else:
            values = np.array([series[s][m] for m in models], dtype=np.float64)
            columns.append(np.broadcast_to(values, (n_bootstrap, len(models))))
    interval = two_level_interval(
        columns[0], columns[1], seed=seed, n_bootstrap=n_bootstrap, alpha=alpha
    )
    return {
        "kendall_tau_ci_low": interval.tau_low,
        "kendall_tau_ci_high": interval.tau_high,
        "spearman_rho_ci_low": interval.rho_low,
        "spearman_rho_ci_high": interval.rho_high,
        "items_resampled": resampled,
    }
