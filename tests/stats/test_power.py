"""What a correlation test could have detected: critical values read off the tables' own
p-value functions, and the simulated power (the issue's figures: 12 models, 24 tests
under Holm, |tau| >= 0.67 to be significant, power 19% at tau 0.5 and 3% at 0.3)."""

from __future__ import annotations

from itertools import permutations

import numpy as np
import pytest
from scipy import stats

from audit.stats.correlation import exact_spearman_p
from audit.stats.power import (
    alpha_per_test,
    critical_kendall_tau,
    critical_spearman_rho,
    detection_limit,
    kendall_rows,
    spearman_rows,
)


def test_twelve_models_among_24_holm_tests_need_tau_two_thirds() -> None:
    limit = detection_limit(
        test="kendall",
        n=12,
        family_size=24,
        correction="holm",
        alpha=0.05,
        effect_size=0.5,
        target_power=0.8,
        seed=13,
    )
    assert limit.alpha_per_test == pytest.approx(0.05 / 24)
    assert limit.critical_kendall_tau == pytest.approx(2 / 3)
    assert limit.power_at(0.5) == pytest.approx(0.19, abs=0.02)
    assert limit.power_at(0.3) == pytest.approx(0.03, abs=0.01)
    assert limit.power_at_effect == limit.power_at(0.5) and not limit.powered
    assert "alpha / m = 0.00208" in limit.method and "m = 24" in limit.method


def test_the_critical_tau_is_where_the_exact_p_value_crosses_the_level() -> None:
    n, level = 7, 0.01
    critical = critical_kendall_tau(n, level)
    assert critical is not None
    x = np.arange(n, dtype=float)
    found = {}
    for perm in permutations(range(n)):
        result = stats.kendalltau(x, np.array(perm, dtype=float))
        found[round(abs(result.statistic), 12)] = result.pvalue
    significant = [tau for tau, p in found.items() if p <= level]
    assert critical == pytest.approx(min(significant))
    assert all(p > level for tau, p in found.items() if tau < critical - 1e-9)


def test_the_critical_rho_uses_the_exact_test_up_to_8_models_then_scipys() -> None:
    n, level = 6, 0.05
    critical = critical_spearman_rho(n, level)
    assert critical is not None
    x = np.arange(n, dtype=float)
    for perm in permutations(range(n)):
        y = np.array(perm, dtype=float)
        rho = abs(stats.spearmanr(x, y).statistic)
        assert (exact_spearman_p(x, y) <= level) == (rho >= critical - 1e-9)
    # four models: the exact test never goes below 1/12
    assert critical_spearman_rho(4, 0.05) is None
    big = critical_spearman_rho(20, 0.01)
    assert big is not None
    t = big * np.sqrt(18 / (1 - big**2))
    assert 2 * stats.t.sf(t, 18) == pytest.approx(0.01)


def test_no_level_can_be_reached_by_too_few_models() -> None:
    assert critical_kendall_tau(4, 0.05) is None  # 2/4! = 0.083
    assert critical_kendall_tau(5, 0.05) == 1.0  # 2/5! = 0.0167, only a perfect ranking
    assert critical_kendall_tau(2, 0.05) is None
    limit = detection_limit(
        test="kendall",
        n=4,
        family_size=1,
        correction=None,
        alpha=0.05,
        effect_size=0.5,
        target_power=0.8,
        seed=0,
    )
    assert limit.power_at_effect == 0.0 and limit.alpha_per_test == 0.05


def test_power_rises_with_the_strength_and_the_models() -> None:
    def power(n: int, tau: float) -> float:
        limit = detection_limit(
            test="kendall",
            n=n,
            family_size=1,
            correction="holm",
            alpha=0.05,
            effect_size=tau,
            target_power=0.8,
            seed=1,
        )
        return limit.power_at_effect

    assert power(12, 0.3) < power(12, 0.5) < power(12, 0.7)
    assert power(12, 0.5) < power(30, 0.5)
    assert power(40, 0.5) >= 0.8


def test_power_is_seeded() -> None:
    args = dict(test="spearman", n=11, family_size=3, correction="bh", alpha=0.05)
    one = detection_limit(**args, effect_size=0.4, target_power=0.8, seed=5)  # type: ignore[arg-type]
    detection_limit.cache_clear()
    two = detection_limit(**args, effect_size=0.4, target_power=0.8, seed=5)  # type: ignore[arg-type]
    assert one == two
    assert alpha_per_test(0.05, 3, "bh") == pytest.approx(0.05 / 3)


def test_row_statistics_equal_scipys_with_ties() -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(0, 4, size=(30, 8)).astype(float)
    y = rng.normal(size=(30, 8))
    y[:, 1] = y[:, 2]
    taus = kendall_rows(x, y)
    rhos = spearman_rows(x, y)
    for i in range(30):
        assert taus[i] == pytest.approx(stats.kendalltau(x[i], y[i]).statistic)
        assert rhos[i] == pytest.approx(stats.spearmanr(x[i], y[i]).statistic)
    flat = np.ones((1, 5))
    assert np.isnan(kendall_rows(flat, rng.normal(size=(1, 5))))[0]
