"""Holm and Benjamini-Hochberg adjusted p-values, computed by hand on a known vector and
checked against scipy, and the smallest p-value a Kendall test can reach with n models."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from audit.stats.multiple_testing import (
    adjust_pvalues,
    min_corrected_p,
    min_kendall_p,
)

#: Sorted: 0.005 (4th), 0.01 (1st), 0.03 (3rd), 0.04 (2nd); m = 4.
P = [0.01, 0.04, 0.03, 0.005]


def test_holm_by_hand() -> None:
    # (m - rank + 1) p, running maximum: 4 x 0.005 = 0.02; 3 x 0.01 = 0.03;
    # 2 x 0.03 = 0.06; 1 x 0.04 = 0.04 -> 0.06 (never below the step before)
    assert adjust_pvalues(P, "holm") == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_benjamini_hochberg_by_hand_and_as_scipy() -> None:
    # m p / rank: 0.02, 0.02, 0.04, 0.04, running minimum from the largest down
    expected = [0.02, 0.04, 0.04, 0.02]
    assert adjust_pvalues(P, "bh") == pytest.approx(expected)
    assert adjust_pvalues(P, "bh") == pytest.approx(list(stats.false_discovery_control(P)))


def test_both_match_a_reference_on_random_p_values() -> None:
    rng = np.random.default_rng(0)
    p = list(rng.uniform(0, 0.2, 12))
    assert adjust_pvalues(p, "bh") == pytest.approx(list(stats.false_discovery_control(p)))
    order = np.argsort(p)
    m = len(p)
    holm = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        holm[i] = running
    assert adjust_pvalues(p, "holm") == pytest.approx(list(holm))


def test_untested_values_stay_none_and_do_not_count() -> None:
    adjusted = adjust_pvalues([None, 0.01, None, 0.04], "holm")
    assert adjusted[0] is None and adjusted[2] is None
    assert adjusted[1:4:2] == pytest.approx([0.02, 0.04])  # m = 2, not 4
    assert adjust_pvalues([None, None], "bh") == [None, None]
    assert adjust_pvalues([0.9, 0.8], "holm") == [1.0, 1.0]  # 2 x 0.8 capped at 1
    assert adjust_pvalues([0.6], "holm") == [0.6]


def test_an_unknown_correction_is_refused() -> None:
    with pytest.raises(ValueError, match=r"unknown correction 'bonferroni'; expected one of"):
        adjust_pvalues([0.1], "bonferroni")  # type: ignore[arg-type]


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7])
def test_smallest_kendall_p_is_scipys_exact_p_of_a_perfect_ranking(n: int) -> None:
    assert min_kendall_p(n) == pytest.approx(2 / math.factorial(n))
    perfect = stats.kendalltau(range(n), range(n))
    assert perfect.pvalue == pytest.approx(min_kendall_p(n))
    reversed_ = stats.kendalltau(range(n), range(n, 0, -1))
    assert reversed_.pvalue == pytest.approx(min_kendall_p(n))


def test_small_n_cannot_reach_significance() -> None:
    # 4 models: 2/24 = 0.083 > 0.05 even alone; 5 models: 2/120 = 0.0167
    assert min_kendall_p(4) == pytest.approx(1 / 12) and min_kendall_p(4) > 0.05
    assert min_kendall_p(5) == pytest.approx(1 / 60) and min_kendall_p(5) < 0.05
    # 8 tests under Holm: 5 models reach at best 8/60 = 0.133; 6 models 8/360 = 0.022
    assert min_corrected_p(min_kendall_p(5), 8, "holm") == pytest.approx(8 / 60)
    assert min_corrected_p(min_kendall_p(6), 8, "holm") == pytest.approx(8 / 360)
    # Benjamini-Hochberg: every test at its minimum, the adjusted value is the minimum
    assert min_corrected_p(min_kendall_p(5), 8, "bh") == pytest.approx(1 / 60)
    assert adjust_pvalues([1 / 60] * 8, "bh") == pytest.approx([1 / 60] * 8)
    assert min_kendall_p(1) == 1.0 and min_corrected_p(0.5, 3, "holm") == 1.0
