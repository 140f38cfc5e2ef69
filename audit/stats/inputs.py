"""Shared input handling of the cross-model statistics: what they need of a measure, and
several models' score frames prepared and aligned on the same items.

The statistics import no measure: a measure's implementation, options and ideal value
are handed in by the caller (audit.studies), so the dependency runs measures -> stats.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Protocol, TypedDict, cast

import numpy as np
import pandas as pd
from pydantic import BaseModel

from audit.errors import AuditUserError
from audit.ids import PluginId
from audit.scoring.base import ScorerInfo
from audit.stats.draws import Draws


class StudiedMeasure(TypedDict):
    """The measure a cross-model study redraws, as the study's keywords: the measure's and
    the scorer's ids, the measure's object (a `Resamplable`), the scorer's facts, the
    measure's validated options and its card's ideal value (None: it has none)."""

    measure: PluginId
    scorer: PluginId
    implementation: object
    scorer_info: ScorerInfo
    options: BaseModel
    ideal_value: float | None


class StatisticsInputError(AuditUserError):
    """Inputs that a cross-model statistic cannot use (different items, no ideal value...)."""


class Resamplable(Protocol):
    """What robustness and comparison need of a measure's implementation.

    `prepare` turns a score frame into arrays with `item_ids` and `strata` (bias type, or
    label x target groups); `values` evaluates the `all` value on every row of an index
    draw at once (NaN where undefined). A measure of labelled sets may also offer
    `group_values(data, draws, group_index)` for per-group comparisons.
    """

    def prepare(self, scores: pd.DataFrame, *, scorer: ScorerInfo) -> Any: ...

    def values(self, data: Any, draws: Draws, options: Any) -> np.ndarray: ...


def require_resamplable(measure: PluginId, implementation: object) -> Resamplable:
    """`implementation` as a Resamplable, or a StatisticsInputError naming `measure`."""
    if not all(callable(getattr(implementation, a, None)) for a in ("prepare", "values")):
        raise StatisticsInputError(
            f"measure '{measure.label}' works on a corpus, not on model scores: it has no "
            f"cross-model statistics"
        )
    return cast(Resamplable, implementation)


def _reorder(data: Any, order: np.ndarray) -> Any:
    n = data.item_ids.size
    changes = {
        f.name: getattr(data, f.name)[order]
        for f in dataclasses.fields(data)
        if isinstance(getattr(data, f.name), np.ndarray) and getattr(data, f.name).shape[:1] == (n,)
    }
    return dataclasses.replace(data, **changes)


def prepare_aligned(
    frames: Mapping[str, pd.DataFrame], *, implementation: Resamplable, scorer_info: ScorerInfo
) -> dict[str, Any]:
    """Each model's prepared arrays, reordered to the first model's item order.

    Raises StatisticsInputError when the models were not scored on the same items.
    """
    if not frames:
        raise StatisticsInputError("no model score frames given")
    prepared = {
        name: implementation.prepare(frame, scorer=scorer_info) for name, frame in frames.items()
    }
    first_name, first = next(iter(prepared.items()))
    reference = first.item_ids
    aligned: dict[str, Any] = {}
    for name, data in prepared.items():
        if set(data.item_ids) != set(reference):
            only_here = sorted(set(data.item_ids) - set(reference))[:5]
            only_there = sorted(set(reference) - set(data.item_ids))[:5]
            raise StatisticsInputError(
                f"models '{name}' and '{first_name}' were scored on different items "
                f"(only in '{name}': {only_here}; only in '{first_name}': {only_there}); "
                f"comparisons need the same items"
            )
        position = {item: i for i, item in enumerate(data.item_ids)}
        reordered = _reorder(data, np.array([position[i] for i in reference], dtype=np.int64))
        if not np.array_equal(reordered.strata, first.strata):
            raise StatisticsInputError(
                f"models '{name}' and '{first_name}' put the same items in different bias "
                f"types or target groups"
            )
        aligned[name] = reordered
    return aligned


def record_keys(
    frames: Mapping[str, pd.DataFrame],
    *,
    measure: PluginId,
    scorer: PluginId,
    seed: int,
    ideal_value: float | None,
) -> dict[str, Any]:
    """What a study record is about and how it was drawn: its measure, its dataset (the
    frames' single `dataset` value, '' when absent), its scorer, the seed of its draws
    and the measure's ideal value."""
    datasets: set[str] = set()
    for frame in frames.values():
        if "dataset" in frame.columns:
            datasets.update(map(str, frame["dataset"].dropna().unique()))
    return {
        "measure": measure,
        "dataset": ";".join(sorted(datasets)),
        "scorer": scorer,
        "seed": seed,
        "ideal_value": ideal_value,
    }
