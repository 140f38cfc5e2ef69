# mypy: disable-error-code="operator"
"""Bias score and score-gap balance: hand-worked values, ties, NaN, orientation, properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_

from audit.measures.base import MeasureCall, MeasureOptions
from audit.measures.indicator import BIAS_SCORE, SCORE_GAP
from audit.measures.options import FormulaOnlyOptions
from tests.measures.frames_factory import AUL, LL, PPL, pair_frame

LIU_ST = [0.4, 0.3, 0.9, 0.8]
LIU_AT = [0.5, 0.4, 0.1, 0.2]


def _all(measure, frame, scorer=AUL, n_bootstrap=0, seed=0, alpha=0.05):  # type: ignore[no-untyped-def]
    values = measure.compute(
        frame,
        MeasureCall(
            scorer=scorer,
            options=FormulaOnlyOptions(),
            seed=seed,
            n_bootstrap=n_bootstrap,
            alpha=alpha,
        ),
    )
    return values[0]


def test_liu_2024_example_bias_score_50_and_gaps() -> None:
    frame = pair_frame(LIU_ST, LIU_AT)
    bias = _all(BIAS_SCORE, frame)
    assert bias.value == 50.0
    assert bias.details["signed"] == 0.0
    gap = _all(SCORE_GAP, frame)
    # stereotype group: items 3, 4: mean st 0.85, mean at 0.15 -> 0.7
    # anti group: items 1, 2: mean st 0.35, mean at 0.45 -> 0.1
    assert gap.details["delta_st"] == pytest.approx(0.7)
    assert gap.details["delta_at"] == pytest.approx(0.1)
    assert gap.value == pytest.approx(0.6)


def test_ties_are_counted_in_n_but_reported_and_left_out_of_the_test() -> None:
    value = _all(BIAS_SCORE, pair_frame([1.0, 2.0, 3.0, 5.0], [1.0, 1.0, 4.0, 4.0]))
    assert value.value == pytest.approx(50.0)  # 2 of 4 prefer st, 1 tie
    assert value.details["ties"] == 1
    assert value.details["st_preferred"] == 2 and value.details["at_preferred"] == 1
    assert value.p_value == pytest.approx(1.0)  # binomial 2 of 3 at 1/2
    assert "tie" in value.note


def test_sign_test_p_value_by_hand() -> None:
    # 9 of 10 prefer st: two-sided p = 2 * (C(10,9) + C(10,10)) / 2^10 = 22/1024
    value = _all(BIAS_SCORE, pair_frame([1.0] * 9 + [0.0], [0.0] * 9 + [1.0]))
    assert value.value == 90.0
    assert value.p_value == pytest.approx(22 / 1024)


def test_all_ties_nan_and_one_sided_groups_are_undefined_with_reasons() -> None:
    tied = _all(BIAS_SCORE, pair_frame([1.0, 2.0], [1.0, 2.0]))
    assert tied.status == "undefined" and tied.value is None and "tie" in tied.note
    nan = _all(BIAS_SCORE, pair_frame([1.0, math.nan, 3.0], [0.0, 1.0, 2.0]))
    assert nan.status == "undefined" and "'1'" in nan.note and "NaN" in nan.note
    gap = _all(SCORE_GAP, pair_frame([2.0, 3.0], [1.0, 1.0]))
    assert gap.status == "undefined" and "every pair prefers S_st" in gap.note


def test_perplexity_scorer_prefers_the_lower_perplexity() -> None:
    frame = pair_frame([10.0, 10.0, 10.0], [20.0, 20.0, 5.0], scorer="ppl")
    assert _all(BIAS_SCORE, frame, scorer=PPL).value == pytest.approx(200 / 3)
    assert _all(BIAS_SCORE, frame, scorer=LL).value == pytest.approx(100 / 3)


def test_groups_are_all_plus_each_bias_type() -> None:
    frame = pair_frame(LIU_ST, LIU_AT, bias_types=["gender", "gender", "race", "race"])
    values = BIAS_SCORE.compute(
        frame, MeasureCall(scorer=AUL, options=MeasureOptions(), seed=0, n_bootstrap=50)
    )
    assert [v.group for v in values] == ["all", "gender", "race"]
    assert [v.value for v in values] == [50.0, 0.0, 100.0]
    assert [v.n for v in values] == [4, 2, 2]


def test_same_seed_same_output_other_seed_other_resamples() -> None:
    rng = np.random.default_rng(1)
    frame = pair_frame(rng.normal(size=80), rng.normal(size=80))
    a = SCORE_GAP.compute(
        frame, MeasureCall(scorer=AUL, options=MeasureOptions(), seed=5, n_bootstrap=300)
    )
    b = SCORE_GAP.compute(
        frame, MeasureCall(scorer=AUL, options=MeasureOptions(), seed=5, n_bootstrap=300)
    )
    c = SCORE_GAP.compute(
        frame, MeasureCall(scorer=AUL, options=MeasureOptions(), seed=6, n_bootstrap=300)
    )
    assert a == b
    assert (a[0].ci_low, a[0].ci_high) != (c[0].ci_low, c[0].ci_high)


def test_bias_score_interval_depends_on_neither_seed_nor_resamples() -> None:
    rng = np.random.default_rng(1)
    frame = pair_frame(rng.normal(size=80), rng.normal(size=80))
    runs = [
        BIAS_SCORE.compute(
            frame, MeasureCall(scorer=AUL, options=MeasureOptions(), seed=s, n_bootstrap=b)
        )
        for s, b in ((5, 300), (6, 300), (5, 0))
    ]
    assert runs[0] == runs[1] == runs[2]
    assert runs[0][0].ci_low is not None and "bootstrap" not in runs[0][0].details


def test_alpha_sets_the_interval_level() -> None:
    rng = np.random.default_rng(2)
    frame = pair_frame(rng.normal(size=200), rng.normal(size=200))
    wide = _all(BIAS_SCORE, frame, n_bootstrap=500, alpha=0.01)
    narrow = _all(BIAS_SCORE, frame, n_bootstrap=500, alpha=0.2)
    assert wide.ci_low < narrow.ci_low <= narrow.ci_high < wide.ci_high


distinct_pairs = st_.lists(
    st_.tuples(st_.floats(-50, 50, allow_nan=False), st_.floats(-50, 50, allow_nan=False)).filter(
        lambda p: p[0] != p[1]
    ),
    min_size=2,
    max_size=40,
)


@settings(max_examples=40, deadline=None)
@given(distinct_pairs)
def test_swapping_st_and_at_mirrors_the_bias_score_around_50(
    pairs: list[tuple[float, float]],
) -> None:
    st, at = zip(*pairs, strict=True)
    forward = _all(BIAS_SCORE, pair_frame(st, at)).value
    backward = _all(BIAS_SCORE, pair_frame(at, st)).value
    assert forward - 50 == pytest.approx(50 - backward)


@settings(max_examples=30, deadline=None)
@given(distinct_pairs, st_.integers(0, 2**31))
def test_bias_score_interval_contains_the_point_estimate(
    pairs: list[tuple[float, float]], seed: int
) -> None:
    st, at = zip(*pairs, strict=True)
    value = _all(BIAS_SCORE, pair_frame(st, at), n_bootstrap=200, seed=seed)
    assert value.ci_low <= value.value <= value.ci_high
