"""What a correlation test could have detected: the smallest |tau| (and |rho|) that can
reach significance after the family's correction, and the test's power at given
strengths of association, by a seeded simulation.

- **The level one test must reach.** A correlation table corrects m tests together (Holm
  or Benjamini-Hochberg). When one true effect sits among nulls, both corrections reject
  it only if its p-value is at most alpha / m (their first step), so `alpha_per_test` is
  alpha / m; with no correction it is alpha.
- **Critical values** are read off the p-value functions the tables use, with no ties:
  Kendall's exact test (scipy's `kendalltau`, exact up to 33 models, asymptotic above),
  Spearman's exact permutation test up to 8 models (`audit.stats.correlation`) and
  scipy's t approximation above. The critical |tau| is the smallest attainable |tau|
  whose p-value is at most alpha_per_test; None when even a perfect ranking's is not.
- **Power** at a population Kendall tau: `simulations` samples of n points from a
  bivariate normal distribution with Pearson correlation sin(pi tau / 2) (Greiner's
  relation: its Kendall tau is tau), each tested as the table tests it; the share that
  reaches the critical value. The generator is seeded by the audit's seed, n and tau.
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
from scipy import stats

from audit.results import DetectionLimit, PowerAt
from audit.stats.multiple_testing import Correction

#: The strengths the power is always reported at (population Kendall tau).
REPORTED_TAUS = (0.3, 0.5)
#: Simulated samples per power figure (Monte-Carlo standard error at most 0.005).
SIMULATIONS = 10_000
#: Up to this many points Spearman's p-value is the exact permutation one (as the tables).
EXACT_SPEARMAN_UP_TO = 8
#: Up to this many points scipy's Kendall test is exact (no ties).
EXACT_KENDALL_UP_TO = 33

METHOD = (
    "{sims:,} seeded samples of {n} points from a bivariate normal distribution whose "
    "Kendall tau is the stated one (Pearson sin(pi tau / 2)), each tested by the table's "
    "{test} test at alpha / m = {level:.3g} (a lone effect among m = {m} tests under "
    "{correction}); power = the share significant"
)


def alpha_per_test(alpha: float, family_size: int, correction: Correction | None) -> float:
    """The level a lone effect must reach: alpha / m under Holm and BH, alpha uncorrected."""
    return alpha if correction is None else alpha / max(family_size, 1)


def _permutation_with_inversions(n: int, inversions: int) -> np.ndarray:
    """A permutation of range(n) with exactly `inversions` inversions (a Lehmer code)."""
    left = inversions
    code = []
    for i in range(n):
        take = min(left, n - 1 - i)
        code.append(take)
        left -= take
    pool = list(range(n))
    return np.array([pool.pop(c) for c in code], dtype=np.float64)


def _kendall_p(n: int, discordant: int) -> float:
    x = np.arange(n, dtype=np.float64)
    return float(stats.kendalltau(x, _permutation_with_inversions(n, discordant)).pvalue)


@functools.cache
def critical_kendall_tau(n: int, level: float) -> float | None:
    """The smallest |tau| (no ties) of n points whose two-sided p-value is <= `level`."""
    if n < 3:
        return None
    pairs = n * (n - 1) // 2
    if _kendall_p(n, 0) > level:
        return None
    low, high = 0, pairs // 2  # p rises with the discordant count up to half the pairs
    while low < high:  # the largest discordant count still significant
        mid = (low + high + 1) // 2
        if _kendall_p(n, mid) <= level:
            low = mid
        else:
            high = mid - 1
    return (pairs - 2 * low) / pairs


@functools.cache
def _exact_spearman_rhos(n: int) -> np.ndarray:
    """|rho| of every pairing of n ranks with 0..n-1 (no ties)."""
    ranks = np.arange(n, dtype=np.float64)
    centred = ranks - ranks.mean()
    perms = np.array(list(itertools.permutations(range(n))), dtype=np.intp)
    return np.abs(centred[perms] @ centred) / float(centred @ centred)


@functools.cache
def critical_spearman_rho(n: int, level: float) -> float | None:
    """The smallest |rho| (no ties) of n points whose two-sided p-value is <= `level`."""
    if n < 3:
        return None
    if n <= EXACT_SPEARMAN_UP_TO:
        rhos = _exact_spearman_rhos(n)
        for value in np.unique(np.round(rhos, 12)):
            if float(np.mean(rhos >= value - 1e-12)) <= level:
                return float(value)
        return None
    t = float(stats.t.isf(level / 2, n - 2))
    return t / math.sqrt(n - 2 + t * t)


def _samples(n: int, tau: float, simulations: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(simulations, n) draws of x and y with population Kendall tau `tau`."""
    rng = np.random.default_rng([seed, n, round(tau * 1_000_000)])
    r = math.sin(math.pi * tau / 2)
    x = rng.standard_normal((simulations, n))
    y = r * x + math.sqrt(max(0.0, 1 - r * r)) * rng.standard_normal((simulations, n))
    return x, y


def kendall_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of each row of x with the same row of y (rows x n; ties allowed;
    NaN where a row has no variation)."""
    sx = np.sign(x[:, :, None] - x[:, None, :])
    sy = np.sign(y[:, :, None] - y[:, None, :])
    upper = np.triu(np.ones(x.shape[1:] * 2, dtype=bool), k=1)
    s = (sx * sy)[:, upper].sum(axis=1)
    nx = (sx[:, upper] != 0).sum(axis=1)
    ny = (sy[:, upper] != 0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((nx > 0) & (ny > 0), s / np.sqrt(nx * ny.astype(np.float64)), np.nan)


def spearman_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho of each row of x with the same row of y (average ranks for ties;
    NaN where a row has no variation)."""
    rx = stats.rankdata(x, axis=1)
    ry = stats.rankdata(y, axis=1)
    rx -= rx.mean(axis=1, keepdims=True)
    ry -= ry.mean(axis=1, keepdims=True)
    denominator = np.sqrt((rx**2).sum(axis=1) * (ry**2).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, (rx * ry).sum(axis=1) / denominator, np.nan)


def simulated_power(
    n: int, tau: float, *, test: str, critical: float | None, simulations: int, seed: int
) -> float:
    """The share of `simulations` samples whose |tau| (or |rho|) reaches `critical`."""
    if critical is None:
        return 0.0
    x, y = _samples(n, tau, simulations, seed)
    found = kendall_rows(x, y) if test == "kendall" else spearman_rows(x, y)
    return float(np.mean(np.abs(found) >= critical - 1e-12))


@functools.cache
def detection_limit(
    *,
    test: str,
    n: int,
    family_size: int,
    correction: Correction | None,
    alpha: float,
    effect_size: float,
    target_power: float,
    seed: int,
    simulations: int = SIMULATIONS,
) -> DetectionLimit:
    """What a `test` ('kendall' or 'spearman') on n points, one of `family_size` tests
    corrected by `correction`, could have detected (see the module docstring)."""
    if test not in ("kendall", "spearman"):
        raise ValueError(f"test must be 'kendall' or 'spearman' (got {test!r})")
    level = alpha_per_test(alpha, family_size, correction)
    tau_c = critical_kendall_tau(n, level)
    rho_c = critical_spearman_rho(n, level)
    critical = tau_c if test == "kendall" else rho_c
    taus = sorted({*REPORTED_TAUS, effect_size})
    power = [
        PowerAt(
            tau=t,
            power=simulated_power(
                n, t, test=test, critical=critical, simulations=simulations, seed=seed
            ),
        )
        for t in taus
    ]
    names = {"holm": "Holm", "bh": "Benjamini-Hochberg", None: "no correction"}
    return DetectionLimit(
        test=test,  # type: ignore[arg-type]
        n=n,
        family_size=family_size,
        correction=correction,
        alpha=alpha,
        alpha_per_test=level,
        critical_kendall_tau=tau_c,
        critical_spearman_rho=rho_c,
        power=power,
        effect_size=effect_size,
        target_power=target_power,
        power_at_effect=next(p.power for p in power if p.tau == effect_size),
        simulations=simulations,
        seed=seed,
        method=METHOD.format(
            sims=simulations,
            n=n,
            test="Kendall" if test == "kendall" else "Spearman",
            level=level,
            m=family_size,
            correction=names[correction],
        ),
    )
