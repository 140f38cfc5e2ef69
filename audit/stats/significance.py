"""Exact tests: the sign (binomial) test of a bias score against 50 and McNemar's test."""

from __future__ import annotations

from dataclasses import dataclass

from scipy import stats


def sign_test_p(n_first: int, n_second: int) -> float | None:
    """Two-sided exact binomial p-value of `n_first` successes in `n_first + n_second`
    trials at probability 1/2; None when there is no trial (every pair tied)."""
    trials = n_first + n_second
    if trials == 0:
        return None
    return float(stats.binomtest(n_first, trials, 0.5, alternative="two-sided").pvalue)


@dataclass(frozen=True)
class McNemarResult:
    """Discordant counts and the exact (binomial) McNemar p-value."""

    only_a: int  # items where the outcome holds for model A only
    only_b: int  # items where it holds for model B only
    p_value: float


def mcnemar_exact(only_a: int, only_b: int) -> McNemarResult:
    """Exact McNemar test on the discordant pairs; p = 1 when there is none."""
    p = sign_test_p(only_a, only_b)
    return McNemarResult(only_a=only_a, only_b=only_b, p_value=1.0 if p is None else p)
