"""Comparing two models on the same items: paired bootstrap of any measure's difference
(and of the difference of distances to the ideal value), McNemar on pair outcomes.

Each record is judged on its own here (`verdict_uncorrected`); the family of comparisons
it belongs to corrects its p-values and decides its verdict
(`audit.stats.comparison_family`), which may ask `PairedData.pvalues` for more resamples.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Unpack

import numpy as np
import pandas as pd
from pydantic import BaseModel

from audit.ids import PluginId
from audit.results import ComparisonRecord, judge_comparison
from audit.stats.draws import Draws, bootstrap_draws, identity_draws
from audit.stats.inputs import (
    Resamplable,
    StatisticsInputError,
    StudiedMeasure,
    prepare_aligned,
    record_keys,
    require_resamplable,
)
from audit.stats.intervals import percentile_interval
from audit.stats.significance import mcnemar_exact


def group_replicates(
    implementation: Resamplable, data: Any, draws: Draws, group: str, options: BaseModel
) -> np.ndarray:
    """The measure on every row of `draws` for `group` ('all', a bias type, a target group)."""
    if group == "all":
        return implementation.values(data, draws, options)
    if hasattr(data, "bias_types") and group in data.bias_types:
        code = data.bias_types.index(group)
        return implementation.values(data, draws.columns(draws.strata == code), options)
    group_values = getattr(implementation, "group_values", None)
    if hasattr(data, "groups") and group in data.groups and group_values is not None:
        return np.asarray(group_values(data, draws, data.groups.index(group)))
    raise StatisticsInputError(f"unknown group '{group}'; known: all, {known_groups(data)}")


def known_groups(data: Any) -> list[str]:
    """The groups of prepared arrays besides `all`: bias types or target groups."""
    return list(getattr(data, "bias_types", ())) + list(getattr(data, "groups", ()))


def bootstrap_p(replicates: np.ndarray) -> float:
    """Two-sided percentile-bootstrap p-value of 'the statistic is 0': twice the smaller
    share of replicates on either side of 0 (0 itself counts on both), each share as
    (count + 1) / (B + 1) so that no p-value is 0 (Davison & Hinkley 1997, eq. 4.11)."""
    values = np.asarray(replicates, dtype=np.float64)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return 1.0
    below = (np.sum(values <= 0) + 1) / (values.size + 1)
    above = (np.sum(values >= 0) + 1) / (values.size + 1)
    return float(min(1.0, 2.0 * min(below, above)))


#: Resamples drawn at once when a p-value needs many (the index array of one chunk).
P_CHUNK = 10_000


@dataclass(frozen=True)
class PairedData:
    """Two models' prepared arrays on the same items, ready for a paired test of one
    measure on one group."""

    measure: PluginId
    scorer: PluginId
    obj: Resamplable
    data_a: Any
    data_b: Any
    options: BaseModel
    ideal: float
    group: str
    #: The measure counts pair preferences: McNemar's exact test is its difference test.
    exact_difference: bool

    def replicates(self, draws: Draws) -> tuple[np.ndarray, np.ndarray]:
        return (
            group_replicates(self.obj, self.data_a, draws, self.group, self.options),
            group_replicates(self.obj, self.data_b, draws, self.group, self.options),
        )

    def pvalues(self, n_resamples: int, seed: int) -> tuple[float | None, float]:
        """The bootstrap p-values of A - B = 0 (None when the difference test is exact)
        and of |A - ideal| - |B - ideal| = 0 from `n_resamples` resamples drawn in chunks
        of P_CHUNK from `seed` (chunk k from seed + k)."""
        counts = np.zeros(4, dtype=np.int64)  # difference <= 0, >= 0; distance <= 0, >= 0
        used = 0
        for k, start in enumerate(range(0, n_resamples, P_CHUNK)):
            size = min(P_CHUNK, n_resamples - start)
            draws = bootstrap_draws(self.data_a.strata, n_resamples=size, seed=seed + k)
            reps_a, reps_b = self.replicates(draws)
            both = np.isfinite(reps_a) & np.isfinite(reps_b)
            diff = (reps_a - reps_b)[both]
            dist = (np.abs(reps_a - self.ideal) - np.abs(reps_b - self.ideal))[both]
            counts += [(diff <= 0).sum(), (diff >= 0).sum(), (dist <= 0).sum(), (dist >= 0).sum()]
            used += int(both.sum())
        if used == 0:
            return (None if self.exact_difference else 1.0), 1.0
        share = (counts + 1) / (used + 1)
        diff_p = float(min(1.0, 2 * min(share[0], share[1])))
        dist_p = float(min(1.0, 2 * min(share[2], share[3])))
        return (None if self.exact_difference else diff_p), dist_p


def prepare_paired(
    frame_a: pd.DataFrame,
    frame_b: pd.DataFrame,
    *,
    model_a: str = "a",
    model_b: str = "b",
    group: str = "all",
    exact_difference: bool = False,
    **studied: Unpack[StudiedMeasure],
) -> PairedData:
    """Both models' arrays aligned on the same items (StatisticsInputError when they cannot
    be compared: no ideal value, different items, the same name twice)."""
    measure, ideal_value = studied["measure"], studied["ideal_value"]
    obj = require_resamplable(measure, studied["implementation"])
    if ideal_value is None:
        raise StatisticsInputError(
            f"measure '{measure.label}' has no ideal value, so a comparison cannot say "
            f"whether a model moved closer to it"
        )
    if model_a == model_b:
        raise StatisticsInputError(f"both models are named '{model_a}'; give distinct names")
    aligned = prepare_aligned(
        {model_a: frame_a, model_b: frame_b},
        implementation=obj,
        scorer_info=studied["scorer_info"],
    )
    return PairedData(
        measure=measure,
        scorer=studied["scorer"],
        obj=obj,
        data_a=aligned[model_a],
        data_b=aligned[model_b],
        options=studied["options"],
        ideal=ideal_value,
        group=group,
        exact_difference=exact_difference and hasattr(aligned[model_a], "st"),
    )


class Pairing(StudiedMeasure, total=False):
    """The keywords `compare_models` passes on to `prepare_paired` (the same names and
    defaults: model_a "a", model_b "b", group "all", exact_difference False)."""

    model_a: str
    model_b: str
    group: str
    exact_difference: bool


def compare_models(
    frame_a: pd.DataFrame,
    frame_b: pd.DataFrame,
    *,
    alpha: float,
    n_bootstrap: int,
    seed: int,
    **pairing: Unpack[Pairing],
) -> ComparisonRecord:
    """Model A (candidate, e.g. the newer version) against model B on the same items.

    `implementation` is the measure's object (see `Resamplable`), `options` its validated
    options and `ideal_value` its card's ideal value; `exact_difference` says the measure
    counts pair preferences (card role `pair_indicator`), so McNemar's exact test is the
    test of A - B. Paired bootstrap: the same stratified resamples of items for both
    models. The record's verdict is judged on its own (`verdict_uncorrected`, see
    `audit.results.comparison_verdict`): `closer to the ideal` when the (1 - alpha) CI of
    |value_a - ideal| - |value_b - ideal| lies below 0, `further from the ideal` when
    above; else `changed` when the CI of value_a - value_b excludes 0, else `no detectable
    change`. `audit.stats.comparison_family` then corrects it over its family. For pair
    sets the record also carries the exact McNemar test on the per-item outcome
    f(S_st) > f(S_at).
    """
    if n_bootstrap < 1:
        raise StatisticsInputError(f"a paired bootstrap needs n_bootstrap >= 1 (got {n_bootstrap})")
    paired = prepare_paired(frame_a, frame_b, **pairing)
    model_a, model_b = pairing.get("model_a", "a"), pairing.get("model_b", "b")
    return paired_record(
        paired,
        frames={model_a: frame_a, model_b: frame_b},
        model_a=model_a,
        model_b=model_b,
        alpha=alpha,
        n_bootstrap=n_bootstrap,
        seed=seed,
    )


def paired_record(
    paired: PairedData,
    *,
    frames: dict[str, pd.DataFrame],
    model_a: str,
    model_b: str,
    alpha: float,
    n_bootstrap: int,
    seed: int,
) -> ComparisonRecord:
    """The record of `compare_models` from prepared arrays."""
    obj, group, ideal = paired.obj, paired.group, paired.ideal
    data_a, data_b = paired.data_a, paired.data_b
    full = identity_draws(data_a.strata)
    value_a = float(group_replicates(obj, data_a, full, group, paired.options)[0])
    value_b = float(group_replicates(obj, data_b, full, group, paired.options)[0])
    draws = bootstrap_draws(data_a.strata, n_resamples=n_bootstrap, seed=seed)
    reps_a, reps_b = paired.replicates(draws)
    both = np.isfinite(reps_a) & np.isfinite(reps_b)
    n_items = int(group_replicates_size(data_a, group))
    keys = record_keys(
        frames, measure=paired.measure, scorer=paired.scorer, seed=seed, ideal_value=ideal
    )
    pair = dict(group=group, model_a=model_a, model_b=model_b, n_items=n_items)
    record: dict[str, Any] = dict(**keys, **pair, alpha=alpha, n_bootstrap=n_bootstrap)
    mcnemar = _mcnemar(data_a, data_b, group)
    record.update(mcnemar)
    if not (np.isfinite(value_a) and np.isfinite(value_b)) or not both.any():
        which = [m for m, v in ((model_a, value_a), (model_b, value_b)) if not np.isfinite(v)]
        return ComparisonRecord(
            **record,
            value_a=_num(value_a),
            value_b=_num(value_b),
            difference=None,
            distance_difference=None,
            verdict="undefined",
            verdict_uncorrected="undefined",
            note=f"no value for model(s) {which}" if which else "no resample had both values",
        )
    differences = (reps_a - reps_b)[both]
    difference = percentile_interval(differences, alpha=alpha)
    distance = np.abs(reps_a[both] - ideal) - np.abs(reps_b[both] - ideal)
    distance_ci = percentile_interval(distance, alpha=alpha)
    assert distance_ci.low is not None and distance_ci.high is not None
    verdict = judge_comparison(
        difference_low=difference.low,
        difference_high=difference.high,
        distance_low=distance_ci.low,
        distance_high=distance_ci.high,
    )
    exact = paired.exact_difference and "mcnemar_p" in mcnemar
    dropped = int((~both).sum())
    return ComparisonRecord(
        **record,
        value_a=value_a,
        value_b=value_b,
        difference=value_a - value_b,
        difference_ci_low=difference.low,
        difference_ci_high=difference.high,
        distance_difference=abs(value_a - ideal) - abs(value_b - ideal),
        distance_ci_low=distance_ci.low,
        distance_ci_high=distance_ci.high,
        p_value=bootstrap_p(distance),
        difference_p=mcnemar["mcnemar_p"] if exact else bootstrap_p(differences),
        difference_test="exact McNemar" if exact else "paired bootstrap",
        difference_se=float(np.std(differences, ddof=1)) if differences.size > 1 else None,
        resamples_for_p=n_bootstrap,
        verdict=verdict,
        verdict_uncorrected=verdict,
        note=f"{dropped} resample(s) without both values left out" if dropped else "",
    )


def group_replicates_size(data: Any, group: str) -> int:
    """Items in `group` of prepared arrays."""
    if group == "all":
        return int(data.item_ids.size)
    if hasattr(data, "bias_types") and group in data.bias_types:
        return int((data.strata == data.bias_types.index(group)).sum())
    return int(data.membership[:, data.groups.index(group)].sum())


def _mcnemar(data_a: Any, data_b: Any, group: str) -> dict[str, Any]:
    if not hasattr(data_a, "st"):
        return {}
    mask = np.ones(data_a.item_ids.size, dtype=bool)
    if group != "all":
        mask = data_a.strata == data_a.bias_types.index(group)
    outcome_a = (data_a.st > data_a.at)[mask]
    outcome_b = (data_b.st > data_b.at)[mask]
    result = mcnemar_exact(int((outcome_a & ~outcome_b).sum()), int((~outcome_a & outcome_b).sum()))
    return {
        "mcnemar_only_a": result.only_a,
        "mcnemar_only_b": result.only_b,
        "mcnemar_p": result.p_value,
    }


def _num(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None
