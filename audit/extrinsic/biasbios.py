"""BiasBios (De-Arteaga et al. 2019): the TPR gap of an occupation classifier (METHODS.md
section 6).

The bios are a task dataset (`audit.data.tasks.biasbios`, registered in
`audit.data.catalog.TASK_DATASETS`): its formats, fields and the seeded split are
described there; `Bio`, `load_biasbios`, `find_biasbios_files` and `split_biasbios` are
importable here as before.

**TPR gap.** For an occupation y with female bios F_y and male bios M_y,
TPR_{y,g} = share of the bios of gender g and true title y whose predicted title is y, and
gap_y = TPR_{y,female} - TPR_{y,male} (De-Arteaga et al. 2019); > 0 means the classifier
recognises the women of that occupation more often than the men. An occupation needs
at least `min_per_gender` bios of each gender for a gap. Over the occupations with a
gap: `mean_abs` = mean |gap_y| (the default headline: the size of the gaps, whatever
their sign), `rms` = sqrt(mean gap_y^2) (GAP^RMS, Romanov et al. 2019, as later BiasBios
work reports it), `mean` = mean gap_y (signed; gaps of opposite sign cancel, so it is not
a size). The bootstrap resamples bios within each (title, gender) cell, so every cell
keeps its size: a cell's resampled correct count is then Binomial(n, k/n), drawn
directly. `tpr_gap_replicates` draws the bios themselves instead (the same marginal
distribution per cell), so that every model is resampled with the same bios: what a
mean over fine-tuning seeds and a bootstrap across models need. The correlation, across
occupations, of gap_y with the share of women among the occupation's bios is the paper's
Figure 2 statistic.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal, Required, TypedDict, Unpack

import numpy as np

from audit.data.tasks.biasbios import (
    Bio,
    Gender,
    find_biasbios_files,
    load_biasbios,
    split_biasbios,
)
from audit.errors import AuditUserError
from audit.extrinsic.statistics import correlate_with_share
from audit.results import TprGapOccupation, TprGapResult
from audit.stats.intervals import MIN_ITEMS_FOR_INTERVAL, bootstrap_interval

__all__ = [
    "Bio",
    "Gender",
    "TprGapSettings",
    "find_biasbios_files",
    "load_biasbios",
    "split_biasbios",
    "tpr_gap",
    "tpr_gap_of_bios",
    "tpr_gap_replicates",
]

Aggregate = Literal["mean_abs", "rms", "mean"]


class TprGapSettings(TypedDict, total=False):
    """`tpr_gap`'s keyword settings (seed and n_bootstrap required)."""

    seed: Required[int]
    n_bootstrap: Required[int]
    alpha: float
    aggregate: Aggregate
    min_per_gender: int


# --- the measure ------------------------------------------------------------------------


def _aggregates(gaps: np.ndarray) -> dict[str, np.ndarray]:
    """mean_abs, rms and mean over the last axis (occupations)."""
    return {
        "mean_abs": np.abs(gaps).mean(axis=-1),
        "rms": np.sqrt((gaps**2).mean(axis=-1)),
        "mean": gaps.mean(axis=-1),
    }


def tpr_gap(
    y_true: Sequence[Any],
    y_pred: Sequence[Any],
    gender: Sequence[str],
    *,
    seed: int,
    n_bootstrap: int,
    alpha: float = 0.05,
    aggregate: Aggregate = "mean_abs",
    min_per_gender: int = 1,
) -> TprGapResult:
    """The TPR gap per occupation and its summaries over occupations (see the module
    docstring). Titles compare as strings; `gender` holds "female"/"male".

    CIs: percentile bootstrap within (title, gender) cells (`n_bootstrap` resamples from
    `seed`; 0 = none); an occupation's own gap interval is withheld below 10 bios of either
    gender, a summary's below 10 bios in all.
    """
    n = len(y_true)
    if len(y_pred) != n or len(gender) != n:
        raise ValueError(
            f"TPR gap: y_true, y_pred and gender differ in length ({n}, {len(y_pred)}, "
            f"{len(gender)})"
        )
    if n == 0:
        raise AuditUserError("TPR gap: no bios to score")
    if min_per_gender < 1:
        raise ValueError(f"min_per_gender must be >= 1 (got {min_per_gender})")
    if n_bootstrap < 0:
        raise ValueError(f"n_bootstrap must be >= 0 (got {n_bootstrap})")
    bad = sorted({str(g) for g in gender} - {"female", "male"})
    if bad:
        raise AuditUserError(f"TPR gap: gender {', '.join(bad)}; expected female or male")
    truth = np.array([str(y) for y in y_true], dtype=object)
    correct = np.array([str(p) == t for p, t in zip(y_pred, truth, strict=True)])
    is_female = np.array([g == "female" for g in gender])

    titles = sorted(set(truth.tolist()))
    n_f = np.array([int(((truth == y) & is_female).sum()) for y in titles])
    n_m = np.array([int(((truth == y) & ~is_female).sum()) for y in titles])
    k_f = np.array([int(((truth == y) & is_female & correct).sum()) for y in titles])
    k_m = np.array([int(((truth == y) & ~is_female & correct).sum()) for y in titles])
    defined = (n_f >= min_per_gender) & (n_m >= min_per_gender)

    with np.errstate(invalid="ignore", divide="ignore"):
        tpr_f = np.where(n_f > 0, k_f / np.maximum(n_f, 1), np.nan)
        tpr_m = np.where(n_m > 0, k_m / np.maximum(n_m, 1), np.nan)
    gaps = tpr_f - tpr_m

    replicates: np.ndarray | None = None
    if n_bootstrap > 0:
        rng = np.random.default_rng(seed)
        rep_f = rng.binomial(
            n_f, np.where(n_f > 0, k_f / np.maximum(n_f, 1), 0.0), (n_bootstrap, len(titles))
        )
        rep_m = rng.binomial(
            n_m, np.where(n_m > 0, k_m / np.maximum(n_m, 1), 0.0), (n_bootstrap, len(titles))
        )
        replicates = rep_f / np.maximum(n_f, 1) - rep_m / np.maximum(n_m, 1)

    rows: list[TprGapOccupation] = []
    for j, title in enumerate(titles):
        low = high = None
        note = ""
        if not defined[j]:
            note = (
                f"no gap: {n_f[j]} female and {n_m[j]} male bio(s), need at least "
                f"{min_per_gender} of each"
            )
        elif replicates is not None:
            interval = bootstrap_interval(
                replicates[:, j],
                alpha=alpha,
                n_items=int(min(n_f[j], n_m[j])),
                counted="bios of the smaller gender",
            )
            low, high, note = interval.low, interval.high, interval.note
        rows.append(
            TprGapOccupation(
                occupation=title,
                n_female=int(n_f[j]),
                n_male=int(n_m[j]),
                tpr_female=_maybe(tpr_f[j]),
                tpr_male=_maybe(tpr_m[j]),
                gap=_maybe(gaps[j]) if defined[j] else None,
                gap_ci_low=low,
                gap_ci_high=high,
                pct_female=100.0 * n_f[j] / (n_f[j] + n_m[j]),
                note=note,
            )
        )

    summary: dict[str, tuple[float | None, float | None, float | None, str]] = {
        name: (None, None, None, "no occupation has bios of both genders")
        for name in ("mean_abs", "rms", "mean")
    }
    n_used = int((n_f + n_m)[defined].sum())
    if defined.any():
        point = _aggregates(gaps[defined])
        boot = _aggregates(replicates[:, defined]) if replicates is not None else None
        for name, estimate in point.items():
            low = high = None
            note = ""
            if boot is not None:
                interval = bootstrap_interval(
                    boot[name],
                    alpha=alpha,
                    n_items=n_used,
                    need=MIN_ITEMS_FOR_INTERVAL,
                    counted="bios",
                )
                low, high, note = interval.low, interval.high, interval.note
            summary[name] = (float(estimate), low, high, note)
    value, ci_low, ci_high, note = summary[aggregate]
    left_out = int((~defined).sum())
    if left_out and defined.any():
        extra = f"{left_out} occupation(s) without bios of both genders left out"
        note = f"{note}; {extra}" if note else extra
    correlation = correlate_with_share(
        {r.occupation: r.gap for r in rows},
        {r.occupation: r.pct_female for r in rows},
        x="TPR gap (female - male)",
        source="share of women among the occupation's bios in the data",
    )
    return TprGapResult(
        aggregate=aggregate,
        value=value,
        ci_low=ci_low,
        ci_high=ci_high,
        note=note,
        mean_abs_gap=summary["mean_abs"][0],
        mean_abs_ci_low=summary["mean_abs"][1],
        mean_abs_ci_high=summary["mean_abs"][2],
        rms_gap=summary["rms"][0],
        rms_ci_low=summary["rms"][1],
        rms_ci_high=summary["rms"][2],
        mean_gap=summary["mean"][0],
        mean_ci_low=summary["mean"][1],
        mean_ci_high=summary["mean"][2],
        accuracy=float(correct.mean()),
        n_bios=n,
        n_occupations=len(titles),
        n_defined=int(defined.sum()),
        alpha=alpha,
        n_bootstrap=n_bootstrap,
        seed=seed,
        occupations=rows,
        correlation=correlation,
    )


def _maybe(x: float) -> float | None:
    return float(x) if math.isfinite(float(x)) else None


def tpr_gap_of_bios(
    bios: Sequence[Bio], y_pred: Sequence[Any], **settings: Unpack[TprGapSettings]
) -> TprGapResult:
    """`tpr_gap` of predictions for `bios` (true titles and genders from the bios), with
    `tpr_gap`'s keyword settings."""
    return tpr_gap([b.title for b in bios], y_pred, [b.gender for b in bios], **settings)


#: Bio indices drawn at once by `tpr_gap_replicates` (bounds its memory).
_CHUNK_DRAWS = 1_000_000


def tpr_gap_replicates(
    y_true: Sequence[Any],
    y_pred: Sequence[Any],
    gender: Sequence[str],
    *,
    seed: int,
    n_bootstrap: int,
    aggregate: Aggregate = "mean_abs",
    min_per_gender: int = 1,
) -> tuple[np.ndarray, int] | None:
    """The chosen summary of the TPR gaps on `n_bootstrap` resamples of the bios, shape
    (n_bootstrap,), with the number of bios in the occupations with a gap; None when no
    occupation has a gap.

    Each resample draws, in every (title, gender) cell, as many of the cell's bios as it
    has, with replacement. The draws depend on the seed and the cells' sizes only (the
    true titles and genders), never on the predictions, so replicate b of every model is
    over the same bios."""
    if n_bootstrap < 1:
        raise ValueError(f"n_bootstrap must be >= 1 (got {n_bootstrap})")
    if len(y_pred) != len(y_true) or len(gender) != len(y_true):
        raise ValueError("TPR gap replicates: y_true, y_pred and gender differ in length")
    truth = np.array([str(y) for y in y_true], dtype=object)
    correct = np.array([str(p) == t for p, t in zip(y_pred, truth, strict=True)])
    is_female = np.array([g == "female" for g in gender])
    titles = sorted(set(truth.tolist()))
    rng = np.random.default_rng(seed)
    tpr = np.zeros((2, n_bootstrap, len(titles)))
    sizes = np.zeros((2, len(titles)), dtype=np.int64)
    for j, title in enumerate(titles):
        for side, members in enumerate((is_female, ~is_female)):
            cell = correct[(truth == title) & members].astype(np.float64)
            sizes[side, j] = cell.size
            if cell.size:
                tpr[side, :, j] = _resampled_means(cell, n_bootstrap, rng)
    defined = (sizes >= min_per_gender).all(axis=0)
    if not defined.any():
        return None
    gaps = tpr[0][:, defined] - tpr[1][:, defined]
    return _aggregates(gaps)[aggregate], int(sizes[:, defined].sum())


def _resampled_means(cell: np.ndarray, n_bootstrap: int, rng: np.random.Generator) -> np.ndarray:
    """The mean of `cell` on `n_bootstrap` resamples of its entries (drawn in chunks)."""
    out = np.empty(n_bootstrap)
    rows = max(1, _CHUNK_DRAWS // cell.size)
    for start in range(0, n_bootstrap, rows):
        stop = min(n_bootstrap, start + rows)
        drawn = rng.integers(0, cell.size, size=(stop - start, cell.size))
        out[start:stop] = cell[drawn].mean(axis=1)
    return out
