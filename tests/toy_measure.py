"""A toy measure written the way docs/architecture.md says a measure is added: this module
(options and implementation) plus one `register_measure` call (made by the test that
uses it, where audit/measures/catalog.py would make it) plus its test
(tests/test_toy_plugins.py).

Mean score gap: `scale` times the mean of f(S_st) - f(S_at) over the pairs, on the
oriented scores (larger = likelier), computed on the score frame the way
audit/measures/indicator.py computes the bias score.
"""

from __future__ import annotations

import numpy as np
from pydantic import Field

from audit.measures.base import MeasureOptions
from audit.measures.frames import PairScores
from audit.measures.options import FormulaOnlyOptions
from audit.measures.pairwise import PairMeasure, Point, gather
from audit.measures.values import coerce_options
from audit.stats.draws import Draws


class MeanGapOptions(FormulaOnlyOptions):
    """The toy measure's one option."""

    scale: float = Field(default=1.0, gt=0, description="Factor applied to the mean gap.")


def mean_gap_values(st: np.ndarray, at: np.ndarray, scale: float) -> np.ndarray:
    """`scale` * mean(st - at) along the last axis."""
    return scale * (st - at).mean(axis=-1)


class MeanGap(PairMeasure):
    """scale * mean(f(S_st) - f(S_at)); 0 = no preference on average."""

    def values(self, data: PairScores, draws: Draws, options: MeasureOptions) -> np.ndarray:
        scale = coerce_options(options, MeanGapOptions).scale
        return mean_gap_values(gather(data.st, draws), gather(data.at, draws), scale)

    def point(
        self, data: PairScores, positions: np.ndarray, options: MeasureOptions, alpha: float
    ) -> Point:
        st, at = data.st[positions], data.at[positions]
        scale = coerce_options(options, MeanGapOptions).scale
        details = {"scale": scale, "n_st_likelier": int((st > at).sum())}
        return Point(float(mean_gap_values(st, at, scale)), details=details)


MEAN_GAP = MeanGap()
