"""(Pseudo-)perplexity from per-sentence log-likelihoods, its paired bootstrap ratio and
the damage verdict, checked against hand computations."""

from __future__ import annotations

import math

import numpy as np
import pytest

from audit.lm_quality.statistics import compare_perplexity, judge_damage, perplexity


def test_perplexity_of_two_sentences_by_hand() -> None:
    # sentence 1: log-likelihood -6.0 over 3 tokens; sentence 2: -4.0 over 2 tokens.
    # exp(-(-6 - 4) / (3 + 2)) = exp(2) = 7.389056...
    assert perplexity([-6.0, -4.0], [3, 2]) == pytest.approx(7.38905609893065, rel=1e-12)
    # pooled over tokens, not the mean of per-sentence perplexities (exp(2) both here)
    assert perplexity([-3.0, -12.0], [3, 2]) == pytest.approx(math.exp(3.0))
    assert perplexity([-3.0, -12.0], [3, 2]) != pytest.approx((math.exp(1.0) + math.exp(6.0)) / 2)


def test_two_sentence_comparison_by_hand() -> None:
    compared = compare_perplexity(
        [-6.0, -4.0], [3, 2], [-9.0, -6.0], [3, 2], threshold=0.1, seed=0, n_bootstrap=200,
        alpha=0.05,
    )  # fmt: skip
    assert compared.base.value == pytest.approx(math.exp(2.0))
    assert compared.variant.value == pytest.approx(math.exp(3.0))
    assert compared.ratio == pytest.approx(math.e)
    assert (compared.base.tokens, compared.variant.tokens, compared.sentences) == (5, 5, 2)
    # 2 sentences: too few for an interval, so the point decides
    assert compared.ratio_low is None and compared.ratio_high is None
    assert compared.note.startswith("too few items for an interval (n=2 sentences")
    assert compared.damage == "damaged"


def test_perplexity_needs_tokens() -> None:
    with pytest.raises(ValueError, match="at least one scored token"):
        perplexity([], [])


def _shifted(ratio: float, n: int = 60, seed: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Base log-likelihoods and the variant's, whose perplexity is `ratio` x the base's on
    every resample (each token's log-probability lowered by log(ratio))."""
    rng = np.random.default_rng(seed)
    tokens = rng.integers(3, 15, size=n)
    base = -tokens * rng.uniform(1.5, 4.0, size=n)
    return base, tokens, base - tokens * math.log(ratio)


@pytest.mark.parametrize(
    ("ratio", "expected"), [(1.25, "damaged"), (1.11, "damaged"), (1.09, "not damaged"),
                            (1.0, "not damaged"), (0.7, "not damaged")],
)  # fmt: skip
def test_damaged_above_the_threshold_and_not_below(ratio: float, expected: str) -> None:
    base, tokens, variant = _shifted(ratio)
    compared = compare_perplexity(
        base, tokens, variant, tokens, threshold=0.1, seed=3, n_bootstrap=300, alpha=0.05
    )
    assert compared.ratio == pytest.approx(ratio)
    assert compared.damage == expected


def test_the_threshold_is_an_option() -> None:
    base, tokens, variant = _shifted(1.25)
    loose = compare_perplexity(
        base, tokens, variant, tokens, threshold=0.3, seed=3, n_bootstrap=300, alpha=0.05
    )
    assert loose.damage == "not damaged"


def test_paired_interval_and_unclear_verdict() -> None:
    rng = np.random.default_rng(7)
    n = 80
    tokens = rng.integers(4, 12, size=n)
    base = -tokens * rng.uniform(2.0, 3.0, size=n)
    # the variant is worse on some sentences and better on others: a noisy ratio near 1.1
    variant = base - tokens * rng.normal(math.log(1.1), 0.3, size=n)
    compared = compare_perplexity(
        base, tokens, variant, tokens, threshold=0.1, seed=11, n_bootstrap=500, alpha=0.05
    )
    assert compared.ratio_low is not None and compared.ratio_high is not None
    assert compared.ratio_low < compared.ratio < compared.ratio_high
    assert compared.base.ci_low is not None and compared.base.ci_high is not None
    assert compared.base.ci_low < compared.base.value < compared.base.ci_high
    assert compared.ratio_low < 1.1 < compared.ratio_high
    assert compared.damage == "unclear"
    again = compare_perplexity(
        base, tokens, variant, tokens, threshold=0.1, seed=11, n_bootstrap=500, alpha=0.05
    )
    assert again == compared  # seeded


def test_no_bootstrap_is_said() -> None:
    base, tokens, variant = _shifted(1.5)
    compared = compare_perplexity(
        base, tokens, variant, tokens, threshold=0.1, seed=0, n_bootstrap=0, alpha=0.05
    )
    assert compared.ratio_low is None and "no bootstrap" in compared.note
    assert compared.damage == "damaged"


@pytest.mark.parametrize(
    ("ratio", "low", "high", "expected"),
    [
        (1.2, 1.15, 1.25, "damaged"),
        (1.12, 1.05, 1.2, "unclear"),
        (1.05, 1.01, 1.1, "not damaged"),  # at the line: not above it
        (1.2, None, None, "damaged"),
        (1.1, None, None, "not damaged"),
    ],
)
def test_judge_damage(ratio: float, low: float | None, high: float | None, expected: str) -> None:
    assert judge_damage(ratio, low, high, 0.1) == expected


def test_mismatched_lengths_are_refused() -> None:
    with pytest.raises(ValueError, match="one score and one token count per sentence"):
        compare_perplexity(
            [-1.0, -2.0], [1, 2], [-1.0], [1], threshold=0.1, seed=0, n_bootstrap=10, alpha=0.05
        )
