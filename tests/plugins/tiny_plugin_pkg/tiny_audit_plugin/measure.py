"""The median score gap: the median of f(S_st) - f(S_at) over the pairs."""

from __future__ import annotations

import numpy as np

from audit.measures.base import MeasureOptions
from audit.measures.frames import PairScores
from audit.measures.pairwise import PairMeasure, Point, gather
from audit.stats.draws import Draws


class MedianGap(PairMeasure):
    """median(f(S_st) - f(S_at)); 0 = as many pairs lean each way."""

    def values(self, data: PairScores, draws: Draws, options: MeasureOptions) -> np.ndarray:
        return np.median(gather(data.st, draws) - gather(data.at, draws), axis=-1)

    def point(
        self, data: PairScores, positions: np.ndarray, options: MeasureOptions, alpha: float
    ) -> Point:
        gaps = data.st[positions] - data.at[positions]
        return Point(float(np.median(gaps)), details={"n_st_likelier": int((gaps > 0).sum())})


MEDIAN_GAP = MedianGap()
