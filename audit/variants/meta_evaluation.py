"""The meta-evaluation of bias measures (Kaneko et al. 2023; METHODS.md section 5).

Bias-controlled fine-tuning trains one model per male share r. A bias measure that works
should follow r: its value should rise (or fall) monotonically across the ratio models.
For every measure (on a dataset, by a scorer, group `all`) this module correlates r with
the measure's values across the ratio models (Pearson and Spearman, with p-values, and a
seeded bootstrap interval of Spearman's rho over the ratio models), then ranks the
measures by |Spearman| -- but only when the control itself worked: the he/she probe's
he-share must rise with r (Spearman > 0 with p < alpha, on at least three ratios).
Otherwise the rows are left unranked and the reason is said in plain words: ranking
measures on noise is not done. The ranking itself (one rank per series of identical
values, and whether each series is told apart from rank 1) is
`audit.stats.ratio_ranking`'s; every bootstrap is seeded by the audit's seed alone.

A pure function of the measurements and the probes: the engine calls it once per
`bias_controlled` variant after measuring; the report only lays the record out.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
from scipy import stats

from audit.results import (
    ControlCheck,
    CorrelationWithRatio,
    DetectionLimit,
    MetaEvaluation,
    ProbeRecord,
)
from audit.stats.intervals import percentile_interval
from audit.stats.multiple_testing import Correction, adjust_pvalues
from audit.stats.power import detection_limit
from audit.stats.ratio_ranking import rank_rows, same_series, spearman_replicates
from audit.stats.two_level import resample_indices

if TYPE_CHECKING:
    from audit.ids import PluginId
    from audit.results import Measurement

#: Fewest ratio models with a value for a correlation (and for the control check).
MIN_POINTS = 3
#: Fewest ratio models with a value for a bootstrap interval of Spearman's rho.
MIN_POINTS_FOR_INTERVAL = 5

NOT_RANKED = "not ranked: the bias control did not work (see the control check)"


def _finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


def _number(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def fmt_p(p: float | None) -> str:
    """A p-value in a sentence: 'p < 0.001', 'p = 0.71'."""
    if p is None:
        return "p undefined"
    return "p < 0.001" if p < 0.001 else f"p = {p:.3g}"


def _r(r: float) -> str:
    return f"r={r:g}"


def correlate_with_ratio(
    ratios: Sequence[float], values: Sequence[float | None]
) -> tuple[dict[str, float | None], int, str]:
    """Pearson and Spearman (with p-values) between r and the values that exist, the
    number of points used, and why there is no correlation ('' when there is one)."""
    points = [(r, v) for r, v in zip(ratios, values, strict=True) if _finite(v)]
    n = len(points)
    empty: dict[str, float | None] = dict(
        pearson=None, pearson_p=None, spearman=None, spearman_p=None
    )
    if n < MIN_POINTS:
        have = "no ratio model has a value" if n == 0 else f"only {n} ratio model(s) with a value"
        return empty, n, f"{have}: at least {MIN_POINTS} are needed for a correlation with r"
    xs = np.array([p[0] for p in points], dtype=np.float64)
    ys = np.array([p[1] for p in points], dtype=np.float64)
    if np.ptp(ys) == 0:
        return (
            empty,
            n,
            (f"the value is {ys[0]:.4g} on all {n} ratio models: correlation with r undefined"),
        )
    if np.ptp(xs) == 0:
        return empty, n, "the ratio models with a value share one r: correlation undefined"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pearson = stats.pearsonr(xs, ys)
        spearman = stats.spearmanr(xs, ys)
    found: dict[str, float | None] = dict(
        pearson=_number(pearson.statistic),
        pearson_p=_number(pearson.pvalue),
        spearman=_number(spearman.statistic),
        spearman_p=_number(spearman.pvalue),
    )
    return found, n, ""


def bootstrap_spearman(
    xs: np.ndarray, ys: np.ndarray, *, n_bootstrap: int, alpha: float, seed: int
) -> tuple[float | None, float | None, int]:
    """Percentile interval of Spearman's rho over `n_bootstrap` resamples of the points
    (drawn with replacement from `seed` alone); `ys` is (n,) values or (B, n) item
    replicates (the two-level bootstrap); resamples without variation in r or in the
    values have no rho and are left out (their count is returned)."""
    idx = resample_indices(seed, n_bootstrap, xs.size)
    interval = percentile_interval(spearman_replicates(xs, ys, idx), alpha=alpha)
    return interval.low, interval.high, interval.n_undefined


def _row(
    key: tuple[PluginId, str, PluginId],
    ratios: list[float],
    values: list[float | None],
    *,
    seed: int,
    n_bootstrap: int,
    alpha: float,
    replicates: np.ndarray | None = None,
) -> CorrelationWithRatio:
    measure, dataset, scorer = key
    label = f"{measure.label} on {dataset} ({scorer.label})"
    found, n, why = correlate_with_ratio(ratios, values)
    notes = [why] if why else []
    low = high = None
    if found["spearman"] is not None:
        if n < MIN_POINTS_FOR_INTERVAL:
            notes.append(
                f"{n} ratio models with a value: fewer than {MIN_POINTS_FOR_INTERVAL}, "
                "no bootstrap interval"
            )
        elif n_bootstrap > 0:
            kept = [i for i, v in enumerate(values) if _finite(v)]
            xs = np.array([ratios[i] for i in kept], dtype=np.float64)
            ys = np.array([values[i] for i in kept], dtype=np.float64)
            if replicates is not None:
                ys = replicates[:, kept]
            # the audit's seed alone: the same values get the same interval, whatever
            # the series is called and whatever else was measured
            low, high, undefined = bootstrap_spearman(
                xs, ys, n_bootstrap=n_bootstrap, alpha=alpha, seed=seed
            )
            if undefined:
                notes.append(
                    f"{undefined} of {n_bootstrap} resamples had no variation and were left "
                    "out of the interval"
                )
    return CorrelationWithRatio(
        measure=measure,
        dataset=dataset,
        scorer=scorer,
        label=label,
        values=values,
        n=n,
        pearson=found["pearson"],
        pearson_p=found["pearson_p"],
        spearman=found["spearman"],
        spearman_p=found["spearman_p"],
        spearman_ci_low=low,
        spearman_ci_high=high,
        items_resampled=replicates is not None and low is not None,
        rank=None,
        note="; ".join(notes),
    )


def check_control(
    ratios: Sequence[float], he_share: Sequence[float | None], *, alpha: float
) -> ControlCheck:
    """Did the control work? The probe's he-share must rise with r: Spearman > 0 with
    p < alpha over at least MIN_POINTS ratios. The reason is said in words either way."""
    share = list(he_share)
    found, n, why = correlate_with_ratio(ratios, share)
    points = [(r, v) for r, v in zip(ratios, share, strict=True) if v is not None and _finite(v)]
    rho, p = found["spearman"], found["spearman_p"]
    not_ranked = " — the measures are not ranked"
    if n < MIN_POINTS:
        have = "no ratio model has" if n == 0 else f"only {n} of {len(share)} ratio models have"
        reason = (
            f"{have} a probe result; at least {MIN_POINTS} are needed to see a trend{not_ranked}"
        )
        return ControlCheck(he_share=share, worked=False, reason=reason, **_control(found))
    (r0, first), (r1, last) = points[0], points[-1]
    went = f"P(he) share went from {first:.2f} at {_r(r0)} to {last:.2f} at {_r(r1)}"
    if why:
        reason = f"P(he) share is {first:.2f} at every r: no trend{not_ranked}"
        return ControlCheck(he_share=share, worked=False, reason=reason, **_control(found))
    assert rho is not None  # a correlation exists once there is no reason against it
    stat = f"Spearman {rho:.2f}, {fmt_p(p)}"
    worked = rho > 0 and p is not None and p < alpha
    if worked:
        reason = f"P(he) share rose from {first:.2f} at {_r(r0)} to {last:.2f} at {_r(r1)}, {stat}"
    elif rho < 0 and p is not None and p < alpha:
        reason = (
            f"P(he) share fell as the male share rose ({went}; {stat}): the control went the "
            f"wrong way{not_ranked}"
        )
    else:
        reason = f"{went}; no monotone trend: {stat} (needs p < {alpha:g}){not_ranked}"
    return ControlCheck(he_share=share, worked=worked, reason=reason, **_control(found))


def _control(found: Mapping[str, float | None]) -> dict[str, float | None]:
    return {k: found[k] for k in ("spearman", "spearman_p", "pearson")}


def meta_evaluate(
    *,
    entry: str,
    base: str,
    ratio_models: Sequence[tuple[float, str]],
    measurements: Sequence[Measurement],
    probes: Mapping[str, ProbeRecord | None],
    seed: int,
    n_bootstrap: int,
    alpha: float,
    replicates: Mapping[SeriesKey, Mapping[str, np.ndarray]] | None = None,
    correction: Correction = "holm",
    effect_size: float = 0.5,
    target_power: float = 0.8,
) -> MetaEvaluation:
    """The meta-evaluation of one `bias_controlled` variant `entry` of `base`.

    `ratio_models` pairs each male share r with its model id; `measurements` may hold
    any models (only the ratio models' group-`all` values count, and only `ok` ones);
    `probes` maps a ratio model to its he/she probe (None or absent: no probe).
    `replicates` maps a series (measure key, dataset, scorer key) to each model's values
    on the item resamples (shape (B,)): a series with them for every ratio model gets
    two-level bootstrap intervals. The Spearman p-values are corrected over the series
    (one per set of identical rows) by `correction`, and `detection` says what the
    corrected test could have detected (`audit.stats.power`).
    """
    if not ratio_models:
        raise ValueError(f"meta-evaluation of {entry!r}: no ratio models")
    pairs = sorted(ratio_models, key=lambda p: p[0])
    ratios = [float(r) for r, _ in pairs]
    models = [m for _, m in pairs]
    if len(set(ratios)) != len(ratios) or len(set(models)) != len(models):
        raise ValueError(f"meta-evaluation of {entry!r}: ratios and models must be distinct")
    if any(not 0 <= r <= 1 for r in ratios):
        raise ValueError(f"meta-evaluation of {entry!r}: ratios must lie in [0, 1], got {ratios}")
    position = {m: i for i, m in enumerate(models)}
    series: dict[tuple[PluginId, str, PluginId], list[float | None]] = {}
    for m in measurements:
        if m.group != "all" or m.model not in position:
            continue
        values = series.setdefault((m.measure, m.dataset, m.scorer), [None] * len(models))
        if m.status == "ok" and _finite(m.value):
            values[position[m.model]] = m.value
    matrices = {
        key: _replicate_matrix(models, (replicates or {}).get(_series_key(key))) for key in series
    }
    rows = [
        _row(
            key,
            ratios,
            values,
            seed=seed,
            n_bootstrap=n_bootstrap,
            alpha=alpha,
            replicates=matrices[key],
        )
        for key, values in series.items()
    ]
    rows, detection = _corrected(
        rows,
        n=len(models),
        correction=correction,
        alpha=alpha,
        effect_size=effect_size,
        target_power=target_power,
        seed=seed,
    )
    he_share = [
        probe.he_share if (probe := probes.get(model)) is not None else None for model in models
    ]
    control = check_control(ratios, he_share, alpha=alpha)
    if control.worked:
        rows = rank_rows(
            rows,
            ratios,
            seed=seed,
            n_bootstrap=n_bootstrap,
            alpha=alpha,
            min_points=MIN_POINTS_FOR_INTERVAL,
            replicates={
                r.label: reps
                for r in rows
                if (reps := matrices.get((r.measure, r.dataset, r.scorer))) is not None
            },
        )
    else:
        rows = [
            r.model_copy(update={"note": "; ".join(filter(None, [r.note, NOT_RANKED]))})
            for r in rows
        ]
    return MetaEvaluation(
        entry=entry,
        base=base,
        ratios=ratios,
        models=models,
        control=control,
        rows=rows,
        correction=correction,
        detection=detection,
    )


SeriesKey = tuple[tuple[str, str], str, tuple[str, str] | None]


def _series_key(key: tuple[PluginId, str, PluginId]) -> SeriesKey:
    measure, dataset, scorer = key
    return (measure.key, dataset, scorer.key)


def _replicate_matrix(
    models: Sequence[str], by_model: Mapping[str, np.ndarray] | None
) -> np.ndarray | None:
    """(B, n_ratios) item replicates in `models` order; None unless every model has them."""
    if not by_model or not all(m in by_model for m in models):
        return None
    return np.stack([np.asarray(by_model[m], dtype=np.float64) for m in models], axis=1)


def _corrected(
    rows: list[CorrelationWithRatio],
    *,
    n: int,
    correction: Correction,
    alpha: float,
    effect_size: float,
    target_power: float,
    seed: int,
) -> tuple[list[CorrelationWithRatio], DetectionLimit | None]:
    """The rows with their Spearman p-values corrected over the distinct series (rows with
    identical values are one test), and the table's detection limit."""
    groups = same_series([r for r in rows if r.spearman_p is not None])
    adjusted = adjust_pvalues([g[0].spearman_p for g in groups], correction)
    by_label = {r.label: p for g, p in zip(groups, adjusted, strict=True) for r in g}
    out = [r.model_copy(update={"spearman_p_corrected": by_label.get(r.label)}) for r in rows]
    if not groups or n < MIN_POINTS:
        return out, None
    detection = detection_limit(
        test="spearman",
        n=n,
        family_size=len(groups),
        correction=correction,
        alpha=alpha,
        effect_size=effect_size,
        target_power=target_power,
        seed=seed,
    )
    return out, detection
