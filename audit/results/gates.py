"""Release gates as the spec gives them (`Gate`, bands resolved) and their verdicts."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any, Literal

from audit.ids import PluginId
from audit.results.record import Record

Verdict = Literal["PASS", "FAIL", "INCONCLUSIVE"]


class Gate(Record):
    """A release gate as the spec gives it (see `audit.gates`). `measure` and `scorer`
    match a plug-in id by its name (any options) or by its exact label."""

    measure: str
    dataset: str
    model: str | None = None
    scorer: str | None = None
    group: str = "all"
    low: float | None = None
    high: float | None = None

    @classmethod
    def of(
        cls,
        *,
        within: Sequence[float] | None = None,
        min: float | None = None,
        max: float | None = None,
        **where: Any,
    ) -> Gate:
        """A gate as a spec writes it (`within: [low, high]`, `min`, `max`), its band
        resolved: `within` narrowed by `min` and `max`, None for an open side."""
        low = within[0] if within is not None else None
        high = within[1] if within is not None else None
        if min is not None:
            low = min if low is None else builtins.max(low, min)
        if max is not None:
            high = max if high is None else builtins.min(high, max)
        return cls(**where, low=low, high=high)


class GateVerdict(Record):
    """One gate judged on one measurement (a gate with `group: '*'` or no model gives several)."""

    gate_index: int
    measure: PluginId
    dataset: str
    model: str | None
    scorer: PluginId | None
    group: str
    low: float | None
    high: float | None
    value: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    verdict: Verdict
    reason: str
