"""A measure's values: as a measure computes one (`MeasureValue`) and as placed in the audit
(`Measurement`: which model, dataset, scorer and measure)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from audit.ids import PluginId
from audit.results.record import Record


class MeasureValue(Record):
    """One value of a measure for one group (`all`, a bias type or a target group), as a
    measure computes it.

    `status` is `undefined` (with `value` None and the reason in `note`) whenever the
    measure has no defined value: zero variance, one item, all ties, NaN scores, ...
    """

    group: str = Field(default="all", description="'all', a bias type or a target group.")
    value: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    n: int
    p_value: float | None = None
    status: Literal["ok", "undefined"] = "ok"
    note: str = ""
    details: dict[str, Any] = Field(default_factory=dict)


class Measurement(MeasureValue):
    """A measure's value placed in the audit: which model, dataset, scorer and measure."""

    model: str
    dataset: str
    scorer: PluginId
    measure: PluginId
