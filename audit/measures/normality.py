"""Shapiro-Wilk normality of the S_st and S_at score sets, and the KLS/JSS caveat."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats

from audit.measures.base import MeasureOptions
from audit.measures.frames import PairScores
from audit.measures.options import NormalityOptions
from audit.measures.pairwise import PairMeasure, Point
from audit.measures.values import coerce_options
from audit.stats.draws import Draws


@dataclass(frozen=True)
class ShapiroResult:
    """W and p of one score set, or the reason there is none."""

    w: float | None
    p: float | None
    reason: str = ""


def shapiro(x: np.ndarray) -> ShapiroResult:
    """Shapiro-Wilk test of `x`; undefined below 3 values or when all values are equal."""
    if x.size < 3:
        return ShapiroResult(None, None, f"{x.size} value(s): Shapiro-Wilk needs at least 3")
    if np.ptp(x) == 0:
        return ShapiroResult(None, None, "all scores are equal")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns that p may be inexact above 5000 values
        w, p = stats.shapiro(x)
    return ShapiroResult(float(w), float(p))


def normality_caveat(
    data: PairScores, positions: np.ndarray, *, level: float
) -> tuple[str, dict[str, object]]:
    """A caveat for Gaussian-fit measures when a per-type score set is not normal at `level`.

    Returns the note ('' when every set passes or cannot be tested) and per-type W/p.
    """
    failing: list[str] = []
    results: dict[str, object] = {}
    for code in np.unique(data.strata[positions]):
        rows = positions[data.strata[positions] == code]
        label = data.bias_types[int(code)]
        per_side = {
            side: shapiro(values[rows]) for side, values in (("st", data.st), ("at", data.at))
        }
        results[label] = {side: {"W": r.w, "p": r.p} for side, r in per_side.items()}
        bad = [s for s, r in per_side.items() if r.p is not None and r.p < level]
        if bad:
            failing.append(f"{label} ({', '.join('S_' + s for s in bad)})")
    if not failing:
        return "", results
    return (
        f"caveat: score set(s) not normal at {level} (Shapiro-Wilk): {', '.join(failing)}",
        results,
    )


class Normality(PairMeasure):
    """Shapiro-Wilk of S_st and S_at; value = the smaller p-value (no bootstrap interval)."""

    has_interval = False

    def values(self, data: PairScores, draws: Draws, options: MeasureOptions) -> np.ndarray:
        out = np.full(draws.n_draws, np.nan)
        for b in range(draws.n_draws):
            p_st = shapiro(data.st[draws.idx[b]]).p
            p_at = shapiro(data.at[draws.idx[b]]).p
            if p_st is not None and p_at is not None:
                out[b] = min(p_st, p_at)
        return out

    def point(
        self, data: PairScores, positions: np.ndarray, options: MeasureOptions, alpha: float
    ) -> Point:
        opts = coerce_options(options, NormalityOptions)
        st, at = shapiro(data.st[positions]), shapiro(data.at[positions])
        details: dict[str, object] = {"W_st": st.w, "p_st": st.p, "W_at": at.w, "p_at": at.p}
        if st.p is None or at.p is None:
            which, result = ("S_st", st) if st.p is None else ("S_at", at)
            return Point(None, reason=f"{which}: {result.reason}", details=details)
        p = min(st.p, at.p)
        details["level"] = opts.level
        details["normal"] = p >= opts.level
        note = "" if p >= opts.level else f"not normal at {opts.level}"
        return Point(p, p_value=p, note=note, details=details)


NORMALITY = Normality()
