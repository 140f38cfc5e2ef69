"""(Pseudo-)perplexity of held-out text, a variant's against its base's, and whether the
variant is damaged.

Perplexity of a text of sentences s with log-likelihoods LL(s) (natural log) over n(s)
scored tokens: exp(-sum_s LL(s) / sum_s n(s)). For a causal LM, LL is the `ll` scorer's
sum of log P(w_t | w_<t) (BOS prepended) and n its scored tokens; for a masked LM, LL is
the `pll` scorer's pseudo-log-likelihood (each token masked in turn) and n its
non-special tokens: the pseudo-perplexity of Salazar et al. 2020.

Intervals: the sentences are resampled with replacement (the same draws for base and
variant: the comparison is paired), each perplexity and their ratio recomputed on every
resample, and the percentile interval taken (`audit.stats.intervals.bootstrap_interval`,
with its rule of at least 10 items). The verdict compares the ratio variant / base with
1 + threshold: `damaged` when the interval lies above it (the point above it when there is
no interval), `not damaged` when the interval lies at or below it (likewise), `unclear`
when the interval straddles it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from audit.stats.draws import bootstrap_draws
from audit.stats.intervals import bootstrap_interval

Damage = Literal["damaged", "not damaged", "unclear"]


def perplexity(
    log_likelihoods: Sequence[float] | np.ndarray, n_tokens: Sequence[int] | np.ndarray
) -> float:
    """exp(-sum of the log-likelihoods / sum of the token counts)."""
    total = int(np.sum(np.asarray(n_tokens, dtype=np.int64)))
    if total <= 0:
        raise ValueError("perplexity needs at least one scored token")
    return math.exp(-float(np.sum(np.asarray(log_likelihoods, dtype=np.float64))) / total)


@dataclass(frozen=True)
class PerplexityValue:
    """One model's perplexity on the text, its interval and the tokens it counts."""

    value: float
    ci_low: float | None
    ci_high: float | None
    tokens: int


@dataclass(frozen=True)
class PerplexityComparison:
    """A variant's perplexity against its base's on the same sentences."""

    sentences: int
    base: PerplexityValue
    variant: PerplexityValue
    ratio: float  # variant / base
    ratio_low: float | None
    ratio_high: float | None
    threshold: float
    damage: Damage
    note: str


def judge_damage(ratio: float, low: float | None, high: float | None, threshold: float) -> Damage:
    """`damaged` above 1 + threshold, `not damaged` at or below it, `unclear` when the
    interval straddles it (without an interval the point decides)."""
    limit = 1.0 + threshold
    if low is None or high is None:
        return "damaged" if ratio > limit else "not damaged"
    if low > limit:
        return "damaged"
    if high <= limit:
        return "not damaged"
    return "unclear"


def _replicate_perplexities(ll: np.ndarray, n: np.ndarray, idx: np.ndarray) -> np.ndarray:
    return np.exp(-ll[idx].sum(axis=1) / n[idx].sum(axis=1))


def compare_perplexity(
    base_ll: Sequence[float],
    base_tokens: Sequence[int],
    variant_ll: Sequence[float],
    variant_tokens: Sequence[int],
    *,
    threshold: float,
    seed: int,
    n_bootstrap: int,
    alpha: float,
) -> PerplexityComparison:
    """Both perplexities, their ratio with paired bootstrap intervals, and the verdict.
    The four sequences hold one entry per sentence, in the same sentence order."""
    b_ll = np.asarray(base_ll, dtype=np.float64)
    v_ll = np.asarray(variant_ll, dtype=np.float64)
    b_n = np.asarray(base_tokens, dtype=np.int64)
    v_n = np.asarray(variant_tokens, dtype=np.int64)
    n = int(b_ll.size)
    if not (v_ll.size == b_n.size == v_n.size == n) or n == 0:
        raise ValueError(
            f"one score and one token count per sentence for both models (got {b_ll.size}, "
            f"{b_n.size} for the base and {v_ll.size}, {v_n.size} for the variant)"
        )
    base = perplexity(b_ll, b_n)
    variant = perplexity(v_ll, v_n)
    ratio = variant / base
    note = ""
    bounds: dict[str, tuple[float | None, float | None]] = {
        "base": (None, None),
        "variant": (None, None),
        "ratio": (None, None),
    }
    if n_bootstrap > 0:
        idx = bootstrap_draws(np.zeros(n, dtype=np.int64), n_resamples=n_bootstrap, seed=seed).idx
        base_reps = _replicate_perplexities(b_ll, b_n, idx)
        variant_reps = _replicate_perplexities(v_ll, v_n, idx)
        for name, reps in (
            ("base", base_reps),
            ("variant", variant_reps),
            ("ratio", variant_reps / base_reps),
        ):
            interval = bootstrap_interval(reps, alpha=alpha, n_items=n, counted="sentences")
            bounds[name] = (interval.low, interval.high)
            if interval.withheld and not note:
                note = interval.note
    else:
        note = "no interval: the spec asks for no bootstrap resamples"
    low, high = bounds["ratio"]
    return PerplexityComparison(
        sentences=n,
        base=PerplexityValue(base, *bounds["base"], tokens=int(b_n.sum())),
        variant=PerplexityValue(variant, *bounds["variant"], tokens=int(v_n.sum())),
        ratio=ratio,
        ratio_low=low,
        ratio_high=high,
        threshold=threshold,
        damage=judge_damage(ratio, low, high, threshold),
        note=note,
    )
