"""What a paired comparison says moved: closer to / further from the ideal (the distance
test), changed (the difference's CI excludes 0, the distance test decides neither), or no
detectable change; and version 2 verdicts read as version 3 ones."""

from __future__ import annotations

import numpy as np
import pytest

from audit.migrations.v2 import migrate_comparison, migrate_v2
from audit.results import COMPARISON_VERDICTS, judge_comparison
from audit.stats.comparison import compare_models
from tests.measures.frames_factory import AUL, pair_frame
from tests.stats.measure_args import study_args

#: CrowS-Pairs gender's size in the debiasing example.
N_PAIRS = 262


def _outcomes(prefers_st: np.ndarray, model: str):  # type: ignore[no-untyped-def]
    """A pair frame whose item i prefers S_st exactly when prefers_st[i]."""
    st = np.where(prefers_st, 1.0, -1.0)
    return pair_frame(st, np.zeros(prefers_st.size), model=model)


def _base_and_variant() -> tuple[np.ndarray, np.ndarray]:
    """The base prefers S_st on 140 of 262 pairs (bias score 53.4); the variant flips 35 of
    those and 18 of the others (123 of 262: 46.9). The score fell by 6.5 points, from 3.44
    above the ideal 50 to 3.05 below it: a move, hardly any closer to the ideal."""
    base = np.zeros(N_PAIRS, dtype=bool)
    base[:140] = True
    variant = base.copy()
    variant[:35] = False
    variant[140:158] = True
    return base, variant


def test_a_score_that_moved_but_not_closer_to_the_ideal_has_changed() -> None:
    base, variant = _base_and_variant()
    assert (base.sum(), variant.sum()) == (140, 123)
    record = compare_models(
        _outcomes(variant, "variant"),
        _outcomes(base, "base"),
        **study_args("bias_score", AUL),
        model_a="variant",
        model_b="base",
        alpha=0.05,
        n_bootstrap=2000,
        seed=13,
    )
    assert record.value_b == pytest.approx(100 * 140 / 262)
    assert record.value_a == pytest.approx(100 * 123 / 262)
    assert record.difference == pytest.approx(-6.49, abs=0.01)
    # the difference's interval excludes 0: -6.5 [-11.8, -1.1], as in the debiasing example
    assert record.difference_ci_low == pytest.approx(-11.83, abs=0.01)
    assert record.difference_ci_high == pytest.approx(-1.15, abs=0.01)
    # |46.95 - 50| - |53.44 - 50| = -0.38: the distance test cannot tell
    assert record.distance_difference == pytest.approx(-0.382, abs=0.001)
    assert record.distance_ci_low < 0 < record.distance_ci_high
    assert record.p_value > 0.05
    assert record.verdict == "changed"


def test_the_same_move_towards_the_ideal_is_closer_to_it() -> None:
    base, _ = _base_and_variant()
    base[140:190] = True  # the base at 190 of 262 (72.5); the variant as before (46.9)
    _, variant = _base_and_variant()
    record = compare_models(
        _outcomes(variant, "variant"),
        _outcomes(base, "base"),
        **study_args("bias_score", AUL),
        model_a="variant",
        model_b="base",
        alpha=0.05,
        n_bootstrap=2000,
        seed=13,
    )
    assert record.distance_ci_high < 0 and record.verdict == "closer to the ideal"
    reverse = compare_models(
        _outcomes(base, "base"),
        _outcomes(variant, "variant"),
        **study_args("bias_score", AUL),
        model_a="base",
        model_b="variant",
        alpha=0.05,
        n_bootstrap=2000,
        seed=13,
    )
    assert reverse.distance_ci_low > 0 and reverse.verdict == "further from the ideal"


@pytest.mark.parametrize(
    ("difference", "distance", "verdict"),
    [
        ((-11.8, -1.1), (-2.9, 2.3), "changed"),
        ((1.1, 11.8), (-2.9, 2.3), "changed"),
        ((-11.8, -1.1), (-9.0, -0.4), "closer to the ideal"),
        ((-11.8, -1.1), (0.4, 9.0), "further from the ideal"),
        ((-4.0, 3.0), (-2.9, 2.3), "no detectable change"),
        # the distance test decides even where the difference's interval holds 0 (a value
        # that crossed the ideal and ended nearer it)
        ((-4.0, 3.0), (-2.9, -0.1), "closer to the ideal"),
        ((None, None), (None, None), "undefined"),
    ],
)
def test_the_verdict_rule(
    difference: tuple[float | None, float | None],
    distance: tuple[float | None, float | None],
    verdict: str,
) -> None:
    found = judge_comparison(
        difference_low=difference[0],
        difference_high=difference[1],
        distance_low=distance[0],
        distance_high=distance[1],
    )
    assert found == verdict and found in COMPARISON_VERDICTS


def _v2_record(verdict: str, difference: tuple[float, float]) -> dict[str, object]:
    return {
        "verdict": verdict,
        "difference": -6.5,
        "difference_ci_low": difference[0],
        "difference_ci_high": difference[1],
        "distance_ci_low": -2.9,
        "distance_ci_high": 2.3,
    }


def test_version_2_verdicts_become_what_moved() -> None:
    moved = _v2_record("not distinguishable", (-11.8, -1.1))
    still = _v2_record("not distinguishable", (-4.0, 3.0))
    assert migrate_comparison(moved)["verdict"] == "changed"
    assert migrate_comparison(still)["verdict"] == "no detectable change"
    renamed = {
        "better": "closer to the ideal",
        "worse": "further from the ideal",
        "undefined": "undefined",
    }
    for old, new in renamed.items():
        assert migrate_comparison(_v2_record(old, (-11.8, -1.1)))["verdict"] == new
    # nothing else changes, and the input is not changed in place
    assert {k: v for k, v in migrate_comparison(moved).items() if k != "verdict"} == {
        k: v for k, v in moved.items() if k != "verdict"
    }
    assert moved["verdict"] == "not distinguishable"
    data = {"results_version": "2.2", "comparisons": [moved, still]}
    migrated = migrate_v2(data)
    assert [c["verdict"] for c in migrated["comparisons"]] == ["changed", "no detectable change"]
    assert data["comparisons"][0]["verdict"] == "not distinguishable"
    # a value no version knows is left for validation to reject
    assert migrate_comparison({"verdict": "maybe"}) == {"verdict": "maybe"}
