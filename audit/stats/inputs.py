"""Shared input handling of the cross-model statistics: resolve a measure, prepare and
align several models' score frames on the same items."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from audit.errors import AuditUserError
from audit.measures.base import MeasureOptions, ResamplableMeasure
from audit.scoring.base import ScorerInfo


class StatisticsInputError(AuditUserError):
    """Inputs that a cross-model statistic cannot use (different items, no ideal value...)."""


def resolve_measure(measure: str | ResamplableMeasure) -> ResamplableMeasure:
    """A measure object from a registered name (or the object itself)."""
    if isinstance(measure, str):
        from audit.measures.catalog import MEASURES

        obj = MEASURES.get(measure)
    else:
        obj = measure
    if not all(hasattr(obj, a) for a in ("prepare", "values", "evaluate")):
        raise StatisticsInputError(
            f"measure '{getattr(obj, 'name', measure)}' works on a corpus, not on model "
            f"scores: it has no cross-model statistics"
        )
    return obj  # type: ignore[return-value]


def resolve_options(measure: ResamplableMeasure, options: MeasureOptions | None) -> MeasureOptions:
    """`options` validated by the measure's options model (defaults when None)."""
    if options is None:
        return measure.options_model()
    return measure.options_model.model_validate(options.model_dump())


def _reorder(data: Any, order: np.ndarray) -> Any:
    n = data.item_ids.size
    changes = {
        f.name: getattr(data, f.name)[order]
        for f in dataclasses.fields(data)
        if isinstance(getattr(data, f.name), np.ndarray) and getattr(data, f.name).shape[:1] == (n,)
    }
    return dataclasses.replace(data, **changes)


def prepare_aligned(
    frames: Mapping[str, pd.DataFrame], *, measure: ResamplableMeasure, scorer: ScorerInfo
) -> dict[str, Any]:
    """Each model's prepared arrays, reordered to the first model's item order.

    Raises StatisticsInputError when the models were not scored on the same items.
    """
    if not frames:
        raise StatisticsInputError("no model score frames given")
    prepared = {name: measure.prepare(frame, scorer=scorer) for name, frame in frames.items()}
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


def frame_label(frames: Mapping[str, pd.DataFrame], column: str) -> str:
    """The single value of `column` across the frames ('' when absent)."""
    values: set[str] = set()
    for frame in frames.values():
        if column in frame.columns:
            values.update(map(str, frame[column].dropna().unique()))
    return ";".join(sorted(values))
