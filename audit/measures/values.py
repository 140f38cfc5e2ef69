"""Helpers that build MeasureValues: undefined results and JSON-safe details."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, TypeVar

import numpy as np

from audit.measures.base import MeasureOptions
from audit.results import MeasureValue


def json_safe(value: Any) -> Any:
    """`value` with numpy scalars/arrays turned into Python ones and NaN/inf into None."""
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return json_safe(value.item())
    if isinstance(value, list | tuple | np.ndarray):
        return [json_safe(v) for v in value]
    if isinstance(value, np.bool_ | bool):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        number = float(value)
        return number if math.isfinite(number) else None
    return value


def undefined(
    group: str, n: int, reason: str, details: Mapping[str, Any] | None = None
) -> MeasureValue:
    """A value that does not exist, with the reason the report prints."""
    return MeasureValue(
        group=group,
        value=None,
        n=n,
        status="undefined",
        note=reason,
        details=json_safe(dict(details or {})),
    )


def join_notes(*notes: str) -> str:
    """Non-empty notes joined with '; '."""
    return "; ".join(n for n in notes if n)


OptionsT = TypeVar("OptionsT", bound=MeasureOptions)


def coerce_options(options: MeasureOptions, model: type[OptionsT]) -> OptionsT:
    """`options` as an instance of the measure's options model (validated again)."""
    if isinstance(options, model):
        return options
    return model.model_validate(options.model_dump())


def describe_items(item_ids: np.ndarray, limit: int = 5) -> str:
    """Up to `limit` item ids, e.g. "'3', '17' and 4 more"."""
    shown = ", ".join(f"'{i}'" for i in item_ids[:limit])
    extra = item_ids.size - min(limit, item_ids.size)
    return f"{shown} and {extra} more" if extra > 0 else shown
