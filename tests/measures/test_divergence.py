# mypy: disable-error-code="operator"
"""KLS and JSS: hand-worked values, the exact JS against direct integration, the
published-code arithmetic, weighting over bias types, undefined cases, properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_
from scipy import integrate, stats

from audit.measures.base import MeasureCall
from audit.measures.divergence import JSS, KLS
from audit.measures.gaussian import js_bits
from audit.measures.options import DivergenceOptions
from tests.measures.frames_factory import AUL, pair_frame

FORMULA = DivergenceOptions()
REFERENCE = DivergenceOptions(compat="reference")


def _values(measure, frame, options=FORMULA, n_bootstrap=0):  # type: ignore[no-untyped-def]
    return measure.compute(
        frame, MeasureCall(scorer=AUL, options=options, seed=0, n_bootstrap=n_bootstrap)
    )


def test_kls_by_hand() -> None:
    # S_st = {0, 2}: mu 1, sd 1 (ML); S_at = {0, 4}: mu 2, sd 2.
    # KL(st||at) = ln 2 + (1 + 1)/8 - 1/2 ; KL(at||st) = ln(1/2) + (4 + 1)/2 - 1/2
    forward = math.log(2) + 2 / 8 - 0.5
    backward = math.log(0.5) + 5 / 2 - 0.5
    value = _values(KLS, pair_frame([0.0, 2.0], [0.0, 4.0]))[0]
    assert value.value == pytest.approx(100 * backward / (forward + backward))
    assert value.details["kl_st_at"] == pytest.approx(forward)
    assert value.details["sd_st"] == pytest.approx(1.0)


def test_jss_reference_arithmetic_by_hand() -> None:
    # n-1 sds: s_st = sqrt(2), s_at = sqrt(8); mixture N(1.5, (2 + 8)/2 = 5)
    kl_st = 0.5 * math.log(5 / 2) + (2 + 0.25) / 10 - 0.5
    kl_at = 0.5 * math.log(5 / 8) + (8 + 0.25) / 10 - 0.5
    j = (kl_st + kl_at) / 2  # < 1, so min(J,1)/max(J,1) = J
    c = abs(math.sqrt(2) - math.sqrt(8))  # > 1, so folded to 1/c
    expected = 100 * (1 - j) / (1 + 1 / c)
    value = _values(JSS, pair_frame([0.0, 2.0], [0.0, 4.0]), REFERENCE)[0]
    assert value.value == pytest.approx(expected)


def _js_by_quadrature(m1: float, s1: float, m2: float, s2: float) -> float:
    p, q = stats.norm(m1, s1), stats.norm(m2, s2)

    def integrand(x: float) -> float:
        a, b = p.pdf(x), q.pdf(x)
        mix = (a + b) / 2
        return 0.5 * (
            (a * math.log2(a / mix) if a > 0 else 0) + (b * math.log2(b / mix) if b > 0 else 0)
        )

    lo, hi = min(m1 - 14 * s1, m2 - 14 * s2), max(m1 + 14 * s1, m2 + 14 * s2)
    points = sorted({m1, m2, m1 - 3 * s1, m1 + 3 * s1, m2 - 3 * s2, m2 + 3 * s2})
    return integrate.quad(integrand, lo, hi, points=points, limit=500, epsabs=1e-13)[0]


@pytest.mark.parametrize(
    "params",
    [
        (0, 1, 0, 1),
        (0, 1, 1, 1),
        (0, 1, 0.1, 2),
        (-2, 0.3, -2.1, 0.35),
        (0, 1, 0, 20),
        (0, 1, 5, 0.05),
    ],
)
def test_exact_js_matches_direct_integration(params: tuple[float, ...]) -> None:
    m1, s1, m2, s2 = (np.array(p, dtype=np.float64) for p in params)
    assert float(js_bits(m1, s1, m2, s2)) == pytest.approx(_js_by_quadrature(*params), abs=1e-6)


def test_jss_formula_is_100_times_one_minus_js_for_equal_spreads() -> None:
    st = np.array([0.0, 2.0, 1.0, 3.0])
    at = st + 1.0
    value = _values(JSS, pair_frame(st, at))[0]
    sd = st.std()
    assert value.value == pytest.approx(100 * (1 - _js_by_quadrature(1.5, sd, 2.5, sd)), abs=1e-4)


def test_weighting_over_types_and_left_out_type() -> None:
    types = ["a", "a", "a", "b", "b", "c"]
    st = [0.0, 2.0, 1.0, 0.0, 3.0, 1.0]
    at = [0.0, 4.0, 1.5, 1.0, 2.5, 2.0]
    values = _values(KLS, pair_frame(st, at, bias_types=types))
    by_group = {v.group: v for v in values}
    assert by_group["c"].status == "undefined" and "1 item" in by_group["c"].note
    expected = (3 * by_group["a"].value + 2 * by_group["b"].value) / 5
    assert by_group["all"].value == pytest.approx(expected)
    assert "['c']" in by_group["all"].note
    reference = {v.group: v for v in _values(KLS, pair_frame(st, at, bias_types=types), REFERENCE)}
    assert reference["all"].status == "undefined"


def test_zero_variance_and_identical_fits_are_undefined() -> None:
    flat = _values(KLS, pair_frame([1.0, 1.0, 1.0], [0.0, 1.0, 2.0]))[0]
    assert flat.status == "undefined" and "S_st has zero variance" in flat.note
    same = _values(KLS, pair_frame([0.0, 1.0, 2.0], [2.0, 1.0, 0.0]))[0]
    assert same.status == "undefined" and "identical" in same.note
    assert _values(JSS, pair_frame([1.0, 1.0, 1.0], [0.0, 1.0, 2.0]))[0].status == "undefined"


def test_non_normal_scores_carry_a_caveat() -> None:
    rng = np.random.default_rng(0)
    st, at = rng.exponential(size=300), rng.normal(size=300)
    for measure in (KLS, JSS):
        value = _values(measure, pair_frame(st, at))[0]
        assert value.status == "ok"
        assert "not normal" in value.note and "S_st" in value.note and "S_at" not in value.note
    normal = _values(KLS, pair_frame(rng.normal(size=200), rng.normal(1, 2, size=200)))[0]
    assert "not normal" not in normal.note


def test_bootstrap_interval_and_jss_range() -> None:
    rng = np.random.default_rng(3)
    types = ["x"] * 60 + ["y"] * 40
    frame = pair_frame(rng.normal(0, 1, 100), rng.normal(0.5, 1.3, 100), bias_types=types)
    for measure in (KLS, JSS):
        values = _values(measure, frame, n_bootstrap=300)
        for v in values:
            assert v.ci_low is not None and v.ci_low <= v.ci_high
    assert all(0 <= v.value <= 100 for v in _values(JSS, frame))


moments = st_.lists(st_.floats(-20, 20, allow_nan=False), min_size=3, max_size=30, unique=True)


@settings(max_examples=40, deadline=None)
@given(moments, moments)
def test_swapping_st_and_at_leaves_kls_and_jss_unchanged(a: list[float], b: list[float]) -> None:
    n = min(len(a), len(b))
    forward = pair_frame(a[:n], b[:n])
    backward = pair_frame(b[:n], a[:n])
    for measure in (KLS, JSS):
        f, r = _values(measure, forward)[0], _values(measure, backward)[0]
        assert f.status == r.status
        if f.value is not None:
            assert f.value == pytest.approx(r.value, rel=1e-9, abs=1e-9)
            if measure is KLS:
                assert 50 - 1e-9 <= f.value <= 100 + 1e-9
