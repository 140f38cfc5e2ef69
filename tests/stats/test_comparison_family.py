"""A family of paired comparisons judged together: Holm (or BH) over the family, McNemar's
exact test for the bias score's difference, one finding counted once, p-values redrawn
with enough resamples for the correction, borderline decisions, detectable differences."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from audit.results import ComparisonRecord
from audit.stats.comparison import compare_models
from audit.stats.comparison_family import (
    PendingComparison,
    correct_families,
    correct_family,
    fewest_pairs,
    needed_resamples,
)
from tests.measures.frames_factory import AUL, pair_frame
from tests.stats.measure_args import study_args

N_PAIRS = 262


def _outcomes(prefers_st: np.ndarray, model: str):  # type: ignore[no-untyped-def]
    st = np.where(prefers_st, 1.0, -1.0)
    return pair_frame(st, np.zeros(prefers_st.size), model=model)


def _compare(variant: np.ndarray, base: np.ndarray, name: str = "bias_score") -> ComparisonRecord:
    return compare_models(
        _outcomes(variant, "variant"),
        _outcomes(base, "base"),
        **study_args(name, AUL),
        model_a="variant",
        model_b="base",
        alpha=0.05,
        n_bootstrap=1000,
        seed=13,
        exact_difference=name in ("bias_score", "ss"),
    )


def _kls(shift: float, seed: int = 0) -> ComparisonRecord:
    """KLS of a variant whose S_st scores moved by `shift` against a base's, 262 pairs."""
    rng = np.random.default_rng(seed)
    st, at = rng.normal(size=N_PAIRS), rng.normal(size=N_PAIRS)
    return compare_models(
        pair_frame(st + shift, at, model="variant"),
        pair_frame(st, at, model="base"),
        **study_args("kls", AUL),
        model_a="variant",
        model_b="base",
        alpha=0.05,
        n_bootstrap=1000,
        seed=13,
    )


def _base() -> np.ndarray:
    base = np.zeros(N_PAIRS, dtype=bool)
    base[:140] = True
    return base


def _moved(flip_st: int, flip_at: int) -> np.ndarray:
    """The base with `flip_st` of its S_st-preferring pairs and `flip_at` others flipped."""
    variant = _base().copy()
    variant[:flip_st] = False
    variant[140 : 140 + flip_at] = True
    return variant


def _judge(records: list[ComparisonRecord], **kw: object) -> list[ComparisonRecord]:
    args = dict(family="variants against their base", correction="holm", alpha=0.05, power=0.8)
    args.update(kw)
    return correct_family([PendingComparison(r) for r in records], **args)  # type: ignore[arg-type]


def test_the_bias_score_difference_is_tested_exactly_by_mcnemar() -> None:
    record = _compare(_moved(35, 18), _base())
    assert record.difference_test == "exact McNemar"
    expected = stats.binomtest(18, 53, 0.5).pvalue
    assert record.difference_p == pytest.approx(expected) == record.mcnemar_p
    (alone,) = _judge([record])
    assert alone.verdict == alone.verdict_uncorrected == "changed"
    assert alone.family_size == 1 and alone.difference_p_corrected == pytest.approx(expected)
    assert alone.borderline_reason == ""


def test_a_change_that_does_not_survive_holm_is_no_detectable_change() -> None:
    changed = _compare(_moved(35, 18), _base())
    others = [_compare(_moved(k, k + 1), _base()) for k in range(9)]  # 9 tiny, distinct moves
    judged = _judge([changed, *others])
    first = judged[0]
    assert first.family_size == 10
    assert first.verdict_uncorrected == "changed"
    assert first.difference_p_corrected == pytest.approx(10 * changed.difference_p)
    assert first.verdict == "no detectable change"
    bh = _judge([changed, *others], correction="bh")[0]
    assert bh.correction == "bh" and bh.difference_p_corrected <= first.difference_p_corrected


def test_one_number_under_two_names_is_one_test() -> None:
    bias = _compare(_moved(35, 18), _base())
    ss = _compare(_moved(35, 18), _base(), name="ss")
    other = _compare(_moved(3, 4), _base())
    judged = _judge([bias, ss, other])
    assert {r.family_size for r in judged} == {2}
    assert judged[1].same_test_as == "bias_score" and "counted once" in judged[1].note
    assert judged[1].verdict == judged[0].verdict
    assert judged[1].difference_p_corrected == judged[0].difference_p_corrected


def test_a_bootstrap_p_value_is_redrawn_when_the_correction_needs_it() -> None:
    record = _kls(1.0)
    assert record.difference_test == "paired bootstrap" and record.resamples_for_p == 1000
    asked: list[int] = []

    def retest(n: int) -> tuple[float | None, float]:
        asked.append(n)
        return 1 / (n + 1), 2 / (n + 1)

    others = [_kls(0.01 * k, seed=k).model_copy(update={"p_value": 0.5}) for k in range(1, 40)]
    pending = [PendingComparison(record, retest)] + [PendingComparison(r) for r in others]
    judged = correct_family(pending, family="f", correction="holm", alpha=0.05, power=0.8)
    m = judged[0].family_size
    assert asked == [needed_resamples(m, 0.05)] and m == 40
    assert judged[0].resamples_for_p == needed_resamples(m, 0.05) == 16_000
    assert judged[0].p_value == pytest.approx(2 / 16_001)


def test_a_p_value_within_its_monte_carlo_band_of_the_threshold_is_borderline() -> None:
    record = _kls(1.0).model_copy(
        update={"p_value": 0.04, "difference_p": 0.3, "distance_difference": -1.0}
    )
    (judged,) = _judge([record])
    assert judged.verdict == "borderline"
    assert (
        "Monte-Carlo" in judged.borderline_reason and "1,000 resamples" in judged.borderline_reason
    )
    clear = record.model_copy(update={"p_value": 0.001})
    assert _judge([clear])[0].verdict == "closer to the ideal"


def test_the_detectable_difference_follows_the_standard_error_and_the_family() -> None:
    records = [_kls(0.05 * k, seed=k) for k in range(5)]
    judged = _judge(records)
    z = stats.norm.isf(0.05 / 10) + stats.norm.ppf(0.8)
    for r in judged:
        assert r.detectable_power == 0.8
        assert r.detectable_difference == pytest.approx(z * r.difference_se)
        assert math.isfinite(r.detectable_difference)


def test_an_exact_mcnemar_difference_is_never_detectable_below_what_the_test_can_reach() -> None:
    # under Holm over 5, the first step needs p <= 0.01: 8 discordant pairs all one way
    # (2 x 0.5^8 = 0.0078) can reach it, 7 (0.0156) cannot
    assert fewest_pairs(0.05, 5) == 8
    assert stats.binomtest(8, 8, 0.5).pvalue <= 0.05 / 5 < stats.binomtest(7, 7, 0.5).pvalue
    assert [fewest_pairs(0.05, m) for m in (1, 18, 96)] == [6, 10, 12]
    floor = 8 * 100 / N_PAIRS
    z = stats.norm.isf(0.05 / 10) + stats.norm.ppf(0.8)
    same = _compare(_base(), _base())  # agree on every pair: the bootstrap SE is 0
    few = [_compare(_moved(k, k + 2), _base()) for k in range(4)]
    judged = _judge([same, *few])
    assert same.difference_se == 0 and judged[0].detectable_difference == pytest.approx(floor)
    for r in judged[1:]:
        assert r.detectable_difference == pytest.approx(max(floor, z * r.difference_se))
    # the floor is the larger here: a few discordant pairs give a small SE
    assert judged[1].detectable_difference == pytest.approx(floor)


def test_families_are_corrected_apart() -> None:
    a = _compare(_moved(35, 18), _base())
    b = _compare(_moved(34, 18), _base()).model_copy(update={"model_a": "other"})
    judged = correct_families(
        [PendingComparison(a), PendingComparison(b)],
        family_of=lambda r: r.model_a,
        correction="holm",
        alpha=0.05,
        power=0.8,
    )
    assert [r.test_family for r in judged] == ["variant", "other"]
    assert all(r.family_size == 1 for r in judged)
