"""The shared machinery of pair-set measures: groups, NaN checks, intervals.

A pair measure implements two things: `values(data, draws, options)` (the measure on
every row of an index-draw array at once, NaN where undefined) and `point(...)` (the
value of one group with its details, p-value and notes). `compute` does the rest:
one `all` group plus one group per bias type, undefined values with their reasons, and
intervals. A measure with an exact interval (`exact_interval`, the bias score) gives it
with its point; the others get percentile intervals from one stratified resample array
shared by every group, withheld below `MIN_ITEMS_FOR_INTERVAL` items or when zero-width
(see audit/stats/intervals.py).
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from audit.measures.base import MeasureOptions, PreparedMeasure
from audit.measures.frames import PairScores, pair_scores
from audit.measures.values import describe_items, join_notes, json_safe, undefined
from audit.results import MeasureValue
from audit.scoring.base import ScorerInfo
from audit.stats.draws import Draws
from audit.stats.intervals import bootstrap_interval

#: Groups by name, each a boolean mask over the items ("all", then one per bias type).
GroupMasks = dict[str, np.ndarray]
#: Each group's bootstrap replicates by name: the value on every resample, shape (B,).
GroupReplicates = dict[str, np.ndarray]


@dataclass
class Point:
    """The value of one group before its interval is attached."""

    value: float | None
    reason: str = ""  # why the value is undefined (value None)
    p_value: float | None = None
    note: str = ""  # caveats of a defined value
    details: dict[str, Any] = field(default_factory=dict)
    ci: tuple[float, float] | None = None  # an exact interval (measures with `exact_interval`)


class PairMeasure(PreparedMeasure):
    """Base of every pair-set measure: subclasses give `values` and `point`, and say
    whether they read the unrelated sentences, whether their values get an interval and
    whether `point` gives that interval itself (`exact_interval`: no bootstrap, an
    interval at every n and whatever `n_bootstrap` is)."""

    needs_unrelated: ClassVar[bool] = False
    has_interval: ClassVar[bool] = True
    exact_interval: ClassVar[bool] = False

    def prepare(self, scores: pd.DataFrame, *, scorer: ScorerInfo) -> PairScores:
        """The oriented score arrays of one model x dataset x scorer."""
        return pair_scores(scores, scorer=scorer)

    @abstractmethod
    def point(
        self, data: PairScores, positions: np.ndarray, options: MeasureOptions, alpha: float
    ) -> Point:
        """The value of the group made of the items at `positions`, with its details."""

    def bootstraps(self) -> bool:
        return self.has_interval and not self.exact_interval

    def evaluate(
        self, data: PairScores, options: MeasureOptions, resamples: Draws | None, alpha: float
    ) -> list[MeasureValue]:
        """`compute` on already prepared arrays and their resamples."""
        groups: list[tuple[str, np.ndarray]] = [("all", np.ones(data.n, dtype=bool))]
        groups += [(t, data.strata == k) for k, t in enumerate(data.bias_types)]
        replicates = (
            self.group_replicates(data, resamples, dict(groups), options) if resamples else {}
        )
        return [self._group(data, g, m, options, replicates.get(g), alpha) for g, m in groups]

    def group_replicates(
        self, data: PairScores, resamples: Draws, groups: GroupMasks, options: MeasureOptions
    ) -> GroupReplicates:
        """The bootstrap replicates of every group (masks over items = over columns)."""
        return {g: self.values(data, resamples.columns(m), options) for g, m in groups.items()}

    def _group(
        self,
        data: PairScores,
        group: str,
        mask: np.ndarray,
        options: MeasureOptions,
        replicates: np.ndarray | None,
        alpha: float,
    ) -> MeasureValue:
        positions = np.flatnonzero(mask)
        n = int(positions.size)
        missing = self.nan_items(data, positions)
        if missing.size:
            return undefined(
                group, n, f"{missing.size} item(s) have NaN scores: {describe_items(missing)}"
            )
        point = self.point(data, positions, options, alpha)
        if point.value is None or not np.isfinite(point.value):
            return undefined(group, n, point.reason or "undefined", point.details)
        details = dict(point.details)
        ci_low = ci_high = None
        note = point.note
        if point.ci is not None:
            ci_low, ci_high = point.ci
        elif replicates is not None:
            interval = bootstrap_interval(replicates, alpha=alpha, n_items=n)
            ci_low, ci_high = interval.low, interval.high
            details.update(interval.details)
            note = join_notes(note, interval.note)
            if ci_low is not None and ci_high is not None and not ci_low <= point.value <= ci_high:
                note = join_notes(note, "point estimate outside the percentile interval")
        return MeasureValue(
            group=group,
            value=float(point.value),
            ci_low=ci_low,
            ci_high=ci_high,
            n=n,
            p_value=point.p_value,
            note=note,
            details=json_safe(details),
        )

    def nan_items(self, data: PairScores, positions: np.ndarray) -> np.ndarray:
        """Ids of the items at `positions` with a NaN score on a side this measure reads."""
        bad = np.isnan(data.st[positions]) | np.isnan(data.at[positions])
        if self.needs_unrelated and data.unrelated is not None:
            bad |= np.isnan(data.unrelated[positions])
        return data.item_ids[positions][bad]


def gather(values: np.ndarray, draws: Draws) -> np.ndarray:
    """`values[draws.idx]`: the drawn scores, shape (B, m)."""
    return values[draws.idx]
