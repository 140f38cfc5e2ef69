# mypy: disable-error-code="operator"
"""Honest intervals at every n (issue #9): the bias score's exact Clopper-Pearson interval
at 1, 2 and 5 items; every bootstrap measure at 1, 2 and 5 items gives its value without
an interval and says why, never a zero-width one; from the minimum on, the intervals are
the percentile intervals they always were."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats

from audit.measures.base import MeasureCall, MeasureOptions
from audit.measures.catalog import MEASURES
from audit.measures.divergence import JSS, KLS
from audit.measures.ilps import ilps
from audit.measures.indicator import BIAS_SCORE, SCORE_GAP
from audit.measures.options import DivergenceOptions, SafetyScoreOptions
from audit.measures.safety import SAFETY_SCORE
from audit.measures.stereoset import ICAT, LMS
from audit.results import MeasureValue
from audit.stats.draws import bootstrap_draws
from audit.stats.intervals import (
    MIN_ITEMS_FOR_INTERVAL,
    TOO_FEW_ITEMS,
    ZERO_WIDTH,
    percentile_interval,
)
from tests.measures.frames_factory import AUL, PPL, labelled_frame, pair_frame

SIZES = (1, 2, 5)


def _compute(measure: Any, frame: Any, *, scorer: Any = AUL, **kw: Any) -> list[MeasureValue]:
    options = kw.pop("options", MeasureOptions())
    args = {"seed": 0, "n_bootstrap": 200, "alpha": 0.05, **kw}
    return measure.compute(frame, MeasureCall(scorer=scorer, options=options, **args))


def _cp(k: int, n: int, alpha: float = 0.05) -> tuple[float, float]:
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=1 - alpha, method="exact")
    return 100 * ci.low, 100 * ci.high


# ----------------------------------------------------------------------------- bias score


@pytest.mark.parametrize(
    ("st", "at", "k", "expected"),
    [
        # 1 item: k = 1 -> [100 * alpha/2, 100]; k = 0 -> [0, 100 * (1 - alpha/2)]
        ([1.0], [0.0], 1, (2.5, 100.0)),
        ([0.0], [1.0], 0, (0.0, 97.5)),
        # 2 items: k = 1 -> [1 - sqrt(0.975), sqrt(0.975)]; k = 0 -> [0, 1 - sqrt(0.025)]
        ([1.0, 0.0], [0.0, 1.0], 1, (100 * (1 - 0.975**0.5), 100 * 0.975**0.5)),
        ([0.0, 0.0], [1.0, 1.0], 0, (0.0, 100 * (1 - 0.025**0.5))),
        # 5 items, one tie (counted in N as no preference): k = 3 of N = 5
        ([1.0, 1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 1.0], 3, _cp(3, 5)),
        # 5 items, all prefer S_st: [100 * (alpha/2)^(1/5), 100]
        ([1.0] * 5, [0.0] * 5, 5, (100 * 0.025 ** (1 / 5), 100.0)),
    ],
)
def test_bias_score_clopper_pearson_at_1_2_and_5_items(
    st: list[float], at: list[float], k: int, expected: tuple[float, float]
) -> None:
    n = len(st)
    value = _compute(BIAS_SCORE, pair_frame(st, at))[0]
    assert value.value == pytest.approx(100 * k / n)
    assert (value.ci_low, value.ci_high) == pytest.approx(expected, abs=1e-9)
    assert (value.ci_low, value.ci_high) == pytest.approx(_cp(k, n), abs=1e-9)
    assert value.ci_low <= value.value <= value.ci_high and value.ci_high > value.ci_low
    assert value.details["interval"] == {
        "method": "Clopper-Pearson exact binomial",
        "level": 0.95,
        "successes": k,
        "trials": n,
    }
    assert TOO_FEW_ITEMS not in value.note


def test_bias_score_groups_get_their_own_exact_interval() -> None:
    # gender: 1 item preferring S_at (was '0.0 [0.0, 0.0]'); race: 1 of 2; age: 4 of 5
    types = ["gender"] + ["race"] * 2 + ["age"] * 5
    st = [0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0]
    at = [1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    values = {v.group: v for v in _compute(BIAS_SCORE, pair_frame(st, at, bias_types=types))}
    for group, k, n in (("all", 5, 8), ("gender", 0, 1), ("race", 1, 2), ("age", 4, 5)):
        assert values[group].value == pytest.approx(100 * k / n)
        assert (values[group].ci_low, values[group].ci_high) == pytest.approx(_cp(k, n))
    assert values["gender"].ci_high == pytest.approx(97.5)


def test_bias_score_interval_at_crows_pairs_size() -> None:
    # 838 of 1,508 pairs prefer S_st: 55.6 [53.0, 58.1]
    st = np.r_[np.ones(838), np.zeros(670)]
    value = _compute(BIAS_SCORE, pair_frame(st, 1 - st))[0]
    assert value.value == pytest.approx(55.5703, abs=1e-4)
    assert (value.ci_low, value.ci_high) == pytest.approx((53.0205, 58.0984), abs=1e-4)


# ------------------------------------------------------------------- bootstrap measures


def _pairs(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """n pairs with both preferences present from 2 items on, distinct scores."""
    rng = np.random.default_rng(seed)
    st = rng.normal(0.0, 1.0, n)
    at = st + np.where(np.arange(n) % 2 == 0, 1.0, -1.0) * rng.uniform(0.5, 1.5, n)
    unrelated = np.minimum(st, at) - np.where(np.arange(n) % 3 == 0, -5.0, 1.0)
    return st, at, unrelated


PAIR_MEASURES = {
    "kls": (KLS, DivergenceOptions()),
    "jss": (JSS, DivergenceOptions()),
    "score_gap": (SCORE_GAP, MeasureOptions()),
    "lms": (LMS, MeasureOptions()),
    "icat": (ICAT, MeasureOptions()),
}


def _assert_honest(value: MeasureValue, n: int, counted: str = "") -> None:
    assert value.ci_low is None and value.ci_high is None
    if value.status == "ok":  # a value keeps its point estimate, without an interval
        assert value.value is not None
        what = f" {counted}" if counted else ""
        expected = f"{TOO_FEW_ITEMS} (n={n}{what}, need at least {MIN_ITEMS_FOR_INTERVAL})"
        assert expected in value.note
        assert value.details["interval"]["withheld"] == expected
        assert "resample(s) had no value" not in value.note


@pytest.mark.parametrize("name", sorted(PAIR_MEASURES))
@pytest.mark.parametrize("n", SIZES)
def test_pair_measures_at_1_2_and_5_items_have_no_interval(name: str, n: int) -> None:
    measure, options = PAIR_MEASURES[name]
    st, at, unrelated = _pairs(n)
    value = _compute(measure, pair_frame(st, at, unrelated=unrelated), options=options)[0]
    if n >= 2:
        assert value.status == "ok", value.note
    _assert_honest(value, n)


@pytest.mark.parametrize("n", SIZES)
def test_safety_score_at_1_2_and_5_items_has_no_interval(n: int) -> None:
    labels = (["harmful", "benign", "harmful", "harmful", "benign"])[:n]
    scores = [9.0, 2.0, 4.0, 7.0, 5.0][:n]
    values = _compute(
        SAFETY_SCORE,
        labelled_frame(scores, labels, ["g"] * n),
        scorer=PPL,
        options=SafetyScoreOptions(),
    )
    by_group = {v.group: v for v in values}
    n_side = min(labels.count("harmful"), labels.count("benign"))
    side = "harmful" if labels.count("harmful") <= labels.count("benign") else "benign"
    if n >= 2:
        assert by_group["g"].status == by_group["all"].status == "ok"
    for v in by_group.values():
        _assert_honest(v, n_side, f"{side} statements")


@pytest.mark.parametrize("n", SIZES)
def test_ilps_at_1_2_and_5_lines_has_no_interval(tmp_path: Path, n: int) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text("he said she\n" * n)
    value = ilps(corpus, male_words=["he"], female_words=["she"], n_bootstrap=200)
    assert value.status == "ok" and value.value == 0.0
    _assert_honest(value, n, "lines")


def test_the_minimum_is_per_group_and_the_interval_starts_at_it() -> None:
    n = MIN_ITEMS_FOR_INTERVAL
    st, at, _ = _pairs(2 * n + 1, seed=4)
    types = ["big"] * n + ["small"] * (n - 1) + ["tiny"] * 2
    values = {v.group: v for v in _compute(SCORE_GAP, pair_frame(st, at, bias_types=types))}
    assert values["all"].ci_low < values["all"].ci_high
    assert values["big"].ci_low < values["big"].ci_high
    _assert_honest(values["small"], n - 1)
    _assert_honest(values["tiny"], 2)


def test_a_zero_width_interval_is_withheld_with_a_note() -> None:
    # every meaningful sentence beats its unrelated one: LMS is 100 in every resample
    st, at, _ = _pairs(40)
    value = _compute(LMS, pair_frame(st, at, unrelated=np.minimum(st, at) - 1))[0]
    assert value.value == 100.0 and value.ci_low is None and value.ci_high is None
    assert value.note == ZERO_WIDTH and value.details["interval"]["withheld"] == ZERO_WIDTH


# ------------------------------------------------------------ large n: unchanged intervals


@pytest.mark.parametrize("name", sorted(PAIR_MEASURES))
def test_large_n_intervals_are_the_plain_percentile_intervals(name: str) -> None:
    measure, options = PAIR_MEASURES[name]
    st, at, unrelated = _pairs(120, seed=2)
    types = ["a"] * 70 + ["b"] * 50
    frame = pair_frame(st, at, unrelated=unrelated, bias_types=types)
    value = _compute(measure, frame, options=options, seed=3, n_bootstrap=300)[0]
    data = measure.prepare(frame, scorer=AUL)
    reps = measure.values(data, bootstrap_draws(data.strata, n_resamples=300, seed=3), options)
    plain = percentile_interval(reps, alpha=0.05)
    # equal up to summation order (the group's draws are a column copy)
    assert (value.ci_low, value.ci_high) == pytest.approx((plain.low, plain.high), rel=1e-12)
    assert value.ci_low < value.ci_high
    assert TOO_FEW_ITEMS not in value.note


def test_large_n_safety_interval_is_the_plain_percentile_interval() -> None:
    rng = np.random.default_rng(5)
    scores = np.r_[rng.normal(10, 2, 40), rng.normal(9, 2, 40), rng.normal(8, 2, 60)]
    labels = ["harmful"] * 40 + ["benign"] * 40 + ["harmful", "benign"] * 30
    groups = ["a"] * 80 + ["b"] * 60
    frame = labelled_frame(np.abs(scores) + 1, labels, groups)
    options = SafetyScoreOptions()
    values = {
        v.group: v
        for v in _compute(SAFETY_SCORE, frame, scorer=PPL, options=options, seed=3, n_bootstrap=300)
    }
    data = SAFETY_SCORE.prepare(frame, scorer=PPL)
    draws = bootstrap_draws(data.strata, n_resamples=300, seed=3)
    plain = percentile_interval(SAFETY_SCORE.values(data, draws, options), alpha=0.05)
    assert (values["all"].ci_low, values["all"].ci_high) == (plain.low, plain.high)
    group_a = percentile_interval(SAFETY_SCORE.group_values(data, draws, 0), alpha=0.05)
    assert (values["a"].ci_low, values["a"].ci_high) == (group_a.low, group_a.high)


# --------------------------------------------------------------------------------- cards


@pytest.mark.parametrize("name", ["kls", "jss", "safety_score", "lms", "icat", "ilps"])
def test_cards_state_the_bootstrap_interval_and_its_minimum(name: str) -> None:
    what = MEASURES.entry(name).card.what
    assert "percentile bootstrap" in what
    assert (f"{MIN_ITEMS_FOR_INTERVAL} " in what and "without an interval" in what) or (
        name == "ilps" and f"none below {MIN_ITEMS_FOR_INTERVAL} lines" in what
    )


@pytest.mark.parametrize("name", ["bias_score", "ss"])
def test_cards_state_the_exact_interval(name: str) -> None:
    what = MEASURES.entry(name).card.what
    assert "Clopper-Pearson" in what and "every N" in what
