"""Comparing two models on the same items: paired bootstrap of any measure's difference
(and of the difference of distances to the ideal value), McNemar on pair outcomes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from pydantic import BaseModel

from audit.ids import PluginId
from audit.results import ComparisonRecord, judge_comparison
from audit.scoring.base import ScorerInfo
from audit.stats.draws import Draws, bootstrap_draws, identity_draws
from audit.stats.inputs import (
    Resamplable,
    StatisticsInputError,
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


def _bootstrap_p(distance: np.ndarray) -> float:
    """Two-sided percentile-bootstrap p-value of 'the distance difference is 0'."""
    below = float(np.mean(distance <= 0))
    above = float(np.mean(distance >= 0))
    return min(1.0, 2.0 * min(below, above))


def compare_models(
    frame_a: pd.DataFrame,
    frame_b: pd.DataFrame,
    *,
    measure: PluginId,
    scorer: PluginId,
    implementation: object,
    scorer_info: ScorerInfo,
    options: BaseModel,
    ideal_value: float | None,
    model_a: str = "a",
    model_b: str = "b",
    group: str = "all",
    alpha: float,
    n_bootstrap: int,
    seed: int,
) -> ComparisonRecord:
    """Model A (candidate, e.g. the newer version) against model B on the same items.

    `implementation` is the measure's object (see `Resamplable`), `options` its validated
    options and `ideal_value` its card's ideal value. Paired bootstrap: the same
    stratified resamples of items for both models. The verdict says what moved
    (`audit.results.comparison_verdict`): `closer to the ideal` when the (1 - alpha) CI of
    |value_a - ideal| - |value_b - ideal| lies below 0, `further from the ideal` when
    above; else `changed` when the CI of value_a - value_b excludes 0, else `no detectable
    change`. For pair sets the record also carries the exact McNemar test on the per-item
    outcome f(S_st) > f(S_at).
    """
    obj = require_resamplable(measure, implementation)
    ideal = ideal_value
    if ideal is None:
        raise StatisticsInputError(
            f"measure '{measure.label}' has no ideal value, so a comparison cannot say "
            f"whether a model moved closer to it"
        )
    if n_bootstrap < 1:
        raise StatisticsInputError(f"a paired bootstrap needs n_bootstrap >= 1 (got {n_bootstrap})")
    frames = {model_a: frame_a, model_b: frame_b}
    if model_a == model_b:
        raise StatisticsInputError(f"both models are named '{model_a}'; give distinct names")
    aligned = prepare_aligned(frames, implementation=obj, scorer_info=scorer_info)
    data_a, data_b = aligned[model_a], aligned[model_b]
    full = identity_draws(data_a.strata)
    value_a = float(group_replicates(obj, data_a, full, group, options)[0])
    value_b = float(group_replicates(obj, data_b, full, group, options)[0])
    draws = bootstrap_draws(data_a.strata, n_resamples=n_bootstrap, seed=seed)
    reps_a = group_replicates(obj, data_a, draws, group, options)
    reps_b = group_replicates(obj, data_b, draws, group, options)
    both = np.isfinite(reps_a) & np.isfinite(reps_b)
    n_items = int(group_replicates_size(data_a, group))
    record: dict[str, Any] = dict(
        **record_keys(frames, measure=measure, scorer=scorer),
        group=group,
        model_a=model_a,
        model_b=model_b,
        n_items=n_items,
        ideal_value=ideal,
        alpha=alpha,
        n_bootstrap=n_bootstrap,
        seed=seed,
    )
    record.update(_mcnemar(data_a, data_b, group))
    if not (np.isfinite(value_a) and np.isfinite(value_b)) or not both.any():
        which = [m for m, v in ((model_a, value_a), (model_b, value_b)) if not np.isfinite(v)]
        return ComparisonRecord(
            **record,
            value_a=_num(value_a),
            value_b=_num(value_b),
            difference=None,
            distance_difference=None,
            verdict="undefined",
            note=f"no value for model(s) {which}" if which else "no resample had both values",
        )
    difference = percentile_interval((reps_a - reps_b)[both], alpha=alpha)
    distance = np.abs(reps_a[both] - ideal) - np.abs(reps_b[both] - ideal)
    distance_ci = percentile_interval(distance, alpha=alpha)
    assert distance_ci.low is not None and distance_ci.high is not None
    verdict = judge_comparison(
        difference_low=difference.low,
        difference_high=difference.high,
        distance_low=distance_ci.low,
        distance_high=distance_ci.high,
    )
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
        p_value=_bootstrap_p(distance),
        verdict=verdict,
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
