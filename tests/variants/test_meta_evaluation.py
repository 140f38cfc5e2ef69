"""The meta-evaluation of measures across bias-controlled ratio models (Kaneko et al. 2023)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from scipy import stats

from audit.ids import PluginId
from audit.results import Measurement, MetaEvaluation, ProbeOccupation, ProbeRecord
from audit.variants.meta_evaluation import (
    NOT_RANKED,
    bootstrap_spearman,
    check_control,
    meta_evaluate,
)

RATIOS = [round(0.1 * i, 1) for i in range(11)]
MODELS = [f"mini-bc-r{r:g}" for r in RATIOS]


def _m(model: str, measure: str, value: float | None, **kw: object) -> Measurement:
    fields: dict[str, object] = dict(
        model=model,
        dataset=kw.pop("dataset", "crows_pairs"),
        scorer=PluginId.of(str(kw.pop("scorer", "pll"))),
        measure=PluginId.of(measure),
        group=kw.pop("group", "all"),
        value=value,
        n=100,
    )
    fields.update(kw)
    return Measurement.model_validate(fields)


def _probe(share: float) -> ProbeRecord:
    p_he = 0.2 * share
    p_she = 0.2 * (1 - share)
    return ProbeRecord(
        template="[MASK] is a/an {occupation}.",
        he="he",
        she="she",
        occupations=[ProbeOccupation(occupation="doctor", p_he=p_he, p_she=p_she)],
        mean_p_he=p_he,
        mean_p_she=p_she,
        he_share=share,
    )


def _probes(shares: Sequence[float | None]) -> dict[str, ProbeRecord | None]:
    return {m: (_probe(s) if s is not None else None) for m, s in zip(MODELS, shares, strict=True)}


RISING = [0.41 + 0.022 * i for i in range(11)]


def _series(measure: str, values: Sequence[float | None], **kw: object) -> list[Measurement]:
    return [_m(model, measure, v, **kw) for model, v in zip(MODELS, values, strict=True)]


def _evaluate(
    measurements: list[Measurement], shares: Sequence[float | None] = RISING
) -> MetaEvaluation:
    return meta_evaluate(
        entry="mini-bc",
        base="mini",
        ratio_models=list(zip(RATIOS, MODELS, strict=True)),
        measurements=measurements,
        probes=_probes(shares),
        seed=3,
        n_bootstrap=400,
        alpha=0.05,
    )


def test_a_monotone_measure_ranks_above_a_noisy_one() -> None:
    rng = np.random.default_rng(0)
    monotone = [50 + 10 * r + rng.normal(0, 0.3) for r in RATIOS]
    noisy = list(50 + rng.normal(0, 3, size=11))
    falling = [90 - 4 * r + rng.normal(0, 1.0) for r in RATIOS]
    found = _evaluate(
        _series("kls", noisy) + _series("bias_score", monotone) + _series("jss", falling)
    )
    assert found.control.worked
    assert found.control.reason.startswith("P(he) share rose from 0.41 at r=0 to 0.63 at r=1")
    assert "Spearman 1.00, p < 0.001" in found.control.reason
    by_name = {r.measure.name: r for r in found.rows}
    assert [r.measure.name for r in found.rows] == ["bias_score", "jss", "kls"]
    assert [r.rank for r in found.rows] == [1, 2, 3]
    top = by_name["bias_score"]
    expected = stats.spearmanr(RATIOS, monotone)
    assert top.spearman == pytest.approx(expected.statistic)
    assert top.spearman_p == pytest.approx(expected.pvalue)
    assert top.pearson == pytest.approx(stats.pearsonr(RATIOS, monotone).statistic)
    assert top.n == 11 and top.values == pytest.approx(monotone)
    assert top.label == "bias_score on crows_pairs (pll)"
    # a falling measure ranks by |rho|: the sign is the measure's direction
    assert by_name["jss"].spearman is not None and by_name["jss"].spearman < -0.8
    assert top.spearman is not None
    assert top.spearman_ci_low is not None and top.spearman_ci_high is not None
    assert top.spearman_ci_low <= top.spearman <= top.spearman_ci_high
    noisy_row = by_name["kls"]
    assert noisy_row.spearman_ci_low is not None and noisy_row.spearman_ci_high is not None
    assert noisy_row.spearman_ci_high - noisy_row.spearman_ci_low > 0.3
    assert found.models == MODELS and found.ratios == RATIOS


def test_the_bootstrap_is_seeded_and_the_same_per_series_whatever_else_was_measured() -> None:
    rng = np.random.default_rng(1)
    values = [float(v) for v in 50 + rng.normal(0, 3, size=11)]
    alone = _evaluate(_series("kls", values)).rows[0]
    again = _evaluate(_series("bias_score", RATIOS) + _series("kls", values))
    beside = next(r for r in again.rows if r.measure.name == "kls")
    assert (alone.spearman_ci_low, alone.spearman_ci_high) == (
        beside.spearman_ci_low,
        beside.spearman_ci_high,
    )


def test_bootstrap_spearman_covers_the_rho_and_skips_flat_resamples() -> None:
    xs = np.arange(6, dtype=float)
    ys = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 2.0])
    low, high, undefined = bootstrap_spearman(xs, ys, n_bootstrap=500, alpha=0.05, seed=0)
    # a resample without the one 2.0 has no variation in y: left out, counted
    assert undefined > 100
    assert low is not None and high is not None and 0 < low <= high <= 1


def test_a_failed_control_gives_no_ranks_and_says_why() -> None:
    flat = [0.5, 0.52, 0.49, 0.5, 0.51, 0.48, 0.5, 0.53, 0.47, 0.5, 0.51]
    found = _evaluate(_series("bias_score", [50 + 10 * r for r in RATIOS]), flat)
    assert not found.control.worked
    assert "no monotone trend: Spearman" in found.control.reason
    assert found.control.reason.endswith("the measures are not ranked")
    assert all(r.rank is None for r in found.rows)
    assert all(NOT_RANKED in r.note for r in found.rows)
    # the correlations themselves are still reported
    assert found.rows[0].spearman == pytest.approx(1.0)


def test_a_control_that_goes_the_wrong_way_did_not_work() -> None:
    found = _evaluate(_series("bias_score", RATIOS), list(reversed(RISING)))
    assert not found.control.worked
    assert found.control.spearman == pytest.approx(-1.0)
    assert "the control went the wrong way" in found.control.reason
    assert found.rows[0].rank is None


def test_a_constant_measure_has_no_correlation() -> None:
    found = _evaluate(_series("bias_score", [52.0] * 11) + _series("kls", RATIOS))
    constant = next(r for r in found.rows if r.measure.name == "bias_score")
    assert constant.spearman is None and constant.pearson is None and constant.rank is None
    assert "on all 11 ratio models: correlation with r undefined" in constant.note
    # it sorts after the ranked rows
    assert [r.rank for r in found.rows] == [1, None]


def test_missing_values_and_undefined_measurements_are_left_out() -> None:
    values: list[float | None] = [50 + 10 * r for r in RATIOS]
    values[3] = None
    measurements = [
        m for m in _series("bias_score", values) if m.value is not None
    ]  # r=0.3 not measured at all
    undefined = _m(MODELS[5], "bias_score", None, status="undefined", note="no pairs")
    measurements = [m for m in measurements if m.model != MODELS[5]] + [undefined]
    # other groups, other models and the base are ignored
    measurements += [
        _m(MODELS[0], "bias_score", 99.0, group="gender"),
        _m("mini", "bias_score", 10.0),
    ]
    row = _evaluate(measurements).rows[0]
    assert row.n == 9
    assert row.values[3] is None and row.values[5] is None
    expected = [v for i, v in enumerate(values) if i not in (3, 5)]
    assert row.spearman == pytest.approx(
        stats.spearmanr([r for i, r in enumerate(RATIOS) if i not in (3, 5)], expected).statistic
    )


def test_too_few_points_give_no_correlation_or_no_interval() -> None:
    four: list[float | None] = [None] * 11
    for i, v in zip((0, 3, 6, 10), (1.0, 2.0, 3.5, 3.0), strict=True):
        four[i] = v
    two: list[float | None] = [1.0, 2.0] + [None] * 9
    found = _evaluate(_series("bias_score", four) + _series("kls", two))
    small = next(r for r in found.rows if r.measure.name == "bias_score")
    assert small.n == 4 and small.spearman is not None
    assert small.spearman_ci_low is None and "fewer than 5, no bootstrap interval" in small.note
    tiny = next(r for r in found.rows if r.measure.name == "kls")
    assert tiny.n == 2 and tiny.spearman is None
    assert "only 2 ratio model(s) with a value" in tiny.note


def test_fewer_than_three_ratios_cannot_show_the_control_worked() -> None:
    check = check_control([0.0, 1.0], [0.3, 0.7], alpha=0.05)
    assert not check.worked and check.spearman is None
    assert "only 2 of 2 ratio models have a probe result" in check.reason
    three = check_control([0.0, 0.5, 1.0], [0.3, 0.5, 0.7], alpha=0.05)
    assert three.worked and three.spearman == pytest.approx(1.0)
    missing = check_control([0.0, 0.5, 1.0], [0.3, None, 0.7], alpha=0.05)
    assert not missing.worked and "only 2 of 3" in missing.reason


def test_a_flat_probe_is_no_trend() -> None:
    check = check_control(RATIOS, [0.5] * 11, alpha=0.05)
    assert not check.worked
    assert check.reason == "P(he) share is 0.50 at every r: no trend — the measures are not ranked"


def test_ratio_models_are_put_in_ratio_order() -> None:
    pairs = list(zip(RATIOS, MODELS, strict=True))[::-1]
    found = meta_evaluate(
        entry="mini-bc",
        base="mini",
        ratio_models=pairs,
        measurements=_series("bias_score", [10 * r for r in RATIOS]),
        probes=_probes(RISING),
        seed=0,
        n_bootstrap=0,
        alpha=0.05,
    )
    assert found.ratios == RATIOS and found.models == MODELS
    assert found.control.he_share == pytest.approx(RISING)
    assert found.rows[0].spearman_ci_low is None and found.rows[0].note == ""


@pytest.mark.parametrize(
    "pairs",
    [[], [(0.0, "a"), (0.0, "b")], [(0.0, "a"), (0.5, "a")], [(0.0, "a"), (1.5, "b")]],
)
def test_bad_ratio_models_are_refused(pairs: list[tuple[float, str]]) -> None:
    with pytest.raises(ValueError, match="meta-evaluation of 'x'"):
        meta_evaluate(
            entry="x",
            base="b",
            ratio_models=pairs,
            measurements=[],
            probes={},
            seed=0,
            n_bootstrap=10,
            alpha=0.05,
        )
