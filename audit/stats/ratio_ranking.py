"""The meta-evaluation's ranking of measures by how strongly they follow the male share r
(Kaneko et al. 2023; METHODS.md section 5), with the ties it cannot break stated.

- **One series, one rank.** Rows whose values are identical on every ratio model (the
  bias score and StereoSet's `ss` are one number under two names) are one series: ranked
  once, sharing a rank, and named together.
- **Ranked by |Spearman ρ|** (ties by |Pearson r|), dense ranks 1, 2, ... per series.
- **Told apart from rank 1, or not.** For every other series, the gap |ρ_1| - |ρ| gets a
  paired percentile-bootstrap interval: the ratio models both series have a value for
  are resampled together (the same draws for both) and the gap recomputed on each
  resample; with item replicates (`audit.stats.two_level`), resample b also takes each
  model's value on the b-th resample of its benchmark items (the two-level bootstrap).
  A series whose interval lies above 0 is told apart from rank 1; otherwise it ties with
  it (also when fewer than `min_points` ratio models have both values, or the
  bootstrap is off). Rank 1 is the best only when no series ties with it.

Every generator is seeded by the audit's seed alone (no label, no name): a series gets
the same draws whatever it is called and whatever else was measured, so two identical
series get identical intervals.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from audit.results import CorrelationWithRatio
from audit.results.variants import same_series
from audit.stats.intervals import percentile_interval
from audit.stats.power import spearman_rows
from audit.stats.two_level import at_models, resample_indices


def spearman_replicates(xs: np.ndarray, ys: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Spearman's ρ of (xs, ys) on each row of resample indices `idx` (resamples x n);
    `ys` is (n,) values or (B, n) item replicates (row b read on resample b); NaN where a
    resample has no variation in xs or in ys."""
    return spearman_rows(at_models(xs, idx), at_models(ys, idx))


def _finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


def gap_interval(
    ratios: Sequence[float],
    first: Sequence[float | None],
    other: Sequence[float | None],
    *,
    seed: int,
    n_bootstrap: int,
    alpha: float,
    min_points: int,
    first_replicates: np.ndarray | None = None,
    other_replicates: np.ndarray | None = None,
) -> tuple[float | None, float | None, str]:
    """The paired percentile interval of |ρ_first| - |ρ_other| over resamples of the ratio
    models both have a value for (and, where given, of each model's items: (B, n_ratios)
    replicates in `ratios` order), and why there is none ('' when there is one)."""
    keep = [
        i for i, (a, b) in enumerate(zip(first, other, strict=True)) if _finite(a) and _finite(b)
    ]
    both = [(ratios[i], first[i], other[i]) for i in keep]
    if n_bootstrap < 1:
        return None, None, "no bootstrap: not told apart from rank 1"
    if len(both) < min_points:
        return (
            None,
            None,
            f"{len(both)} ratio models with values of both: fewer than {min_points}, not "
            "told apart from rank 1",
        )
    xs = np.array([p[0] for p in both], dtype=np.float64)
    ya = np.array([p[1] for p in both], dtype=np.float64)
    yb = np.array([p[2] for p in both], dtype=np.float64)
    if first_replicates is not None:
        ya = first_replicates[:, keep]
    if other_replicates is not None:
        yb = other_replicates[:, keep]
    idx = resample_indices(seed, n_bootstrap, len(both))
    gap = np.abs(spearman_replicates(xs, ya, idx)) - np.abs(spearman_replicates(xs, yb, idx))
    interval = percentile_interval(gap, alpha=alpha)
    if interval.low is None or interval.high is None:
        return None, None, "no resample had both correlations: not told apart from rank 1"
    return interval.low, interval.high, ""


def _strength(row: CorrelationWithRatio) -> tuple[float, float]:
    return (-round(abs(row.spearman or 0.0), 12), -round(abs(row.pearson or 0.0), 12))


def _same_values_note(row: CorrelationWithRatio, group: list[CorrelationWithRatio]) -> str:
    others = [r.label for r in group if r is not row]
    if not others:
        return ""
    return f"same values as {' and '.join(others)} on every ratio model: one series, ranked once"


def rank_rows(
    rows: Sequence[CorrelationWithRatio],
    ratios: Sequence[float],
    *,
    seed: int,
    n_bootstrap: int,
    alpha: float,
    min_points: int,
    replicates: Mapping[str, np.ndarray] | None = None,
) -> list[CorrelationWithRatio]:
    """Rows with a Spearman ρ ranked once per series (strongest first), each series after
    the first with its gap to rank 1 and whether it ties with it; rows without a ρ after
    them, unranked. `replicates` maps a row's label to its (B, n_ratios) item replicates
    (the two-level bootstrap of the gap)."""
    reps = replicates or {}
    groups = sorted(
        same_series([r for r in rows if r.spearman is not None]), key=lambda g: _strength(g[0])
    )
    ranked: list[CorrelationWithRatio] = []
    for rank, group in enumerate(groups, 1):
        update: dict[str, object] = {"rank": rank}
        why = ""
        if rank > 1:
            first = groups[0][0]
            low, high, why = gap_interval(
                ratios,
                first.values,
                group[0].values,
                seed=seed,
                n_bootstrap=n_bootstrap,
                alpha=alpha,
                min_points=min_points,
                first_replicates=reps.get(first.label),
                other_replicates=reps.get(group[0].label),
            )
            update.update(
                gap_to_first=abs(first.spearman or 0.0) - abs(group[0].spearman or 0.0),
                gap_to_first_ci_low=low,
                gap_to_first_ci_high=high,
                ties_first=low is None or low <= 0,
            )
        for row in group:
            note = "; ".join(filter(None, [row.note, _same_values_note(row, group), why]))
            ranked.append(row.model_copy(update={**update, "note": note}))
    return ranked + [r for r in rows if r.spearman is None]
