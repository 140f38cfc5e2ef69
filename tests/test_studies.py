"""The cross-model studies (audit/studies.py), tested directly on a hand-built scoring schedule and
synthetic score frames: which robustness records and model comparisons exist, what they
hold, and how the correlations pick their series."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from audit.display import SilentDisplay
from audit.errors import AuditUserError
from audit.ids import PluginId
from audit.measures.catalog import MEASURES, register_measure
from audit.results import DevCheck, ExtrinsicRecord, Measurement
from audit.scoring.units import ScoreUnit
from audit.scoring_schedule import MeasureTask, ScoringSchedule
from audit.spec.models import RobustnessSpec
from audit.stats.multiple_testing import adjust_pvalues
from audit.studies import Studies, StudySettings, UnitKey, correlations, paired_test, run_studies
from tests import toy_measure
from tests.extrinsic.test_head_kinds import summary
from tests.measures.frames_factory import pair_frame

ORDER = ("m1", "m2", "m3")
DATASET = "toy"  # the dataset frames_factory writes
AUL = PluginId.of("aul")
LL = PluginId.of("ll")
BIAS = PluginId.of("bias_score")
KLS_REF = PluginId.of("kls", {"compat": "reference"})
NORMALITY = PluginId.of("normality")
STS = PluginId.of("sts_bias")
NLI = PluginId.of("nli_bias")
FIXED_GAP = PluginId.of("toy_fixed_gap")  # has an ideal value but is not resamplable
N_ITEMS = 10
BIAS_TYPES = ["gender"] * 6 + ["race"] * 4
#: Items where S_st scores above S_at, per model: bias scores 50, 80 and 30.
ST_LIKELIER = {
    "m1": [0, 2, 4, 6, 8],
    "m2": [0, 1, 2, 3, 4, 5, 6, 8],
    "m3": [1, 7, 9],
}
BIAS_SCORE = {m: 100.0 * len(items) / N_ITEMS for m, items in ST_LIKELIER.items()}


def _frame(model: str, scorer: str = "aul", seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed + ORDER.index(model))
    at = rng.normal(-5.0, 1.0, N_ITEMS)
    sign = np.where(np.isin(np.arange(N_ITEMS), ST_LIKELIER[model]), 1.0, -1.0)
    st = at + sign * rng.uniform(0.2, 1.5, N_ITEMS)
    return pair_frame(st, at, bias_types=BIAS_TYPES, model=model, scorer=scorer)


@pytest.fixture(scope="module", autouse=True)
def fixed_gap() -> Iterator[None]:
    """The toy measure registered with an ideal value but without the `resamplable` role."""
    entry = register_measure(
        name=FIXED_GAP.name,
        title="Toy mean score gap, not redrawn",
        shape="pairs",
        roles=("diagnostic",),
        ideal_value=0.0,
        options=toy_measure.MeanGapOptions,
        target="tests.toy_measure:MEAN_GAP",
        what="scale * mean(f(S_st) - f(S_at)).",
        inputs="Pair set.",
        direction="Positive: stereotypes likelier.",
        ideal="0",
        citation="Written for the test.",
        limitations=("In score units.",),
    )
    yield
    MEASURES.unregister(entry.name)


def _schedule(
    units: Sequence[tuple[str, PluginId]], measures: Sequence[PluginId]
) -> ScoringSchedule:
    scored = [ScoreUnit(model=model, dataset=DATASET, scorer=scorer) for model, scorer in units]
    tasks = [MeasureTask(unit=unit, measure=m) for unit in scored for m in measures]
    return ScoringSchedule(units=scored, measures=tasks)


MEASURE_IDS = (BIAS, KLS_REF, NORMALITY, FIXED_GAP)
#: m1, m2, m3 scored with aul; m3 also with ll (a scorer only one model used).
UNITS = [("m1", AUL), ("m2", AUL), ("m3", AUL), ("m3", LL)]


def _frames(units: Sequence[tuple[str, PluginId]]) -> dict[UnitKey, pd.DataFrame]:
    return {(m, DATASET, s): _frame(m, s.name) for m, s in units}


def _settings(
    order: Sequence[str] = ORDER, robustness: RobustnessSpec | None = None
) -> StudySettings:
    return StudySettings(
        model_order=list(order), seed=11, alpha=0.05, bootstrap=200, robustness=robustness
    )


def _run(
    settings: StudySettings,
    units: Sequence[tuple[str, PluginId]] = UNITS,
    frames: dict[UnitKey, pd.DataFrame] | None = None,
    measurements: list[Measurement] | None = None,
) -> tuple[Studies, SilentDisplay]:
    display = SilentDisplay()
    schedule = _schedule(units, MEASURE_IDS)
    studies = run_studies(
        settings,
        schedule,
        _frames(units) if frames is None else frames,
        measurements or [],
        display,
    )
    return studies, display


@pytest.fixture(scope="module")
def with_robustness() -> tuple[Studies, SilentDisplay]:
    rates = RobustnessSpec.model_validate({"rates": [0.5, 1.0], "repeats": 6, "agreement": 0.9})
    return _run(_settings(robustness=rates))


# ------------------------------------------------------------------------------ frames


def test_frames_have_the_bias_scores_they_were_built_for() -> None:
    for model in ORDER:
        wide = _frame(model).pivot(index="item_id", columns="side", values="score")
        assert 100.0 * (wide["st"] > wide["at"]).mean() == BIAS_SCORE[model]
    assert BIAS_SCORE == {"m1": 50.0, "m2": 80.0, "m3": 30.0}


# -------------------------------------------------------------------------- robustness


def test_no_robustness_records_unless_the_spec_asks() -> None:
    studies, display = _run(_settings(robustness=None))
    assert studies.robustness == []
    assert not any(msg.startswith("robustness") for msg in display.messages)
    assert studies.comparisons  # the other studies still run


def test_one_robustness_record_per_resamplable_measure_and_rate(
    with_robustness: tuple[Studies, SilentDisplay],
) -> None:
    studies, display = with_robustness
    keys = [(r.scorer, r.measure, r.rate) for r in studies.robustness]
    expected = [
        (scorer, measure, rate)
        for scorer in (AUL, LL)
        for measure in (BIAS, KLS_REF, NORMALITY)  # not the toy: it is not resamplable
        for rate in (0.5, 1.0)
    ]
    assert keys == expected
    for r in studies.robustness:
        assert isinstance(r.measure, PluginId) and isinstance(r.scorer, PluginId)
        assert r.dataset == DATASET and r.repeats == 6 and r.seed == 11
        assert r.required_share == 0.9
    kls = next(r for r in studies.robustness if r.measure == KLS_REF)
    assert kls.measure.options == {"compat": "reference"}
    assert kls.measure.label == "kls[compat=reference]"
    assert "robustness: bias_score on toy (aul)" in display.messages
    assert "robustness: kls[compat=reference] on toy (ll)" in display.messages


def test_robustness_records_hold_each_models_full_value(
    with_robustness: tuple[Studies, SilentDisplay],
) -> None:
    studies, _ = with_robustness
    aul_bias = [r for r in studies.robustness if r.measure == BIAS and r.scorer == AUL]
    for r in aul_bias:
        assert {s.model: s.full_value for s in r.models} == BIAS_SCORE
        assert r.full_ordering == ["m2", "m1", "m3"]
        assert r.ideal_value == 50.0
    full = next(r for r in aul_bias if r.rate == 1.0)
    assert full.n_items == N_ITEMS and full.ordering_share == 1.0
    ll_bias = next(r for r in studies.robustness if r.measure == BIAS and r.scorer == LL)
    assert [s.model for s in ll_bias.models] == ["m3"]
    assert "one model" in ll_bias.note
    normality = next(r for r in studies.robustness if r.measure == NORMALITY)
    assert normality.ideal_value is None and normality.side_share is not None


def test_robustness_uses_its_own_seed_when_given() -> None:
    rates = RobustnessSpec.model_validate({"rates": [0.5], "repeats": 3, "seed": 5})
    studies, _ = _run(_settings(robustness=rates), units=[("m1", AUL), ("m2", AUL)])
    assert studies.robustness and {r.seed for r in studies.robustness} == {5}


# ------------------------------------------------------------------------- comparisons


def test_comparisons_for_every_pair_of_models_later_model_is_a(
    with_robustness: tuple[Studies, SilentDisplay],
) -> None:
    studies, _ = with_robustness
    keys = [(c.measure, c.model_a, c.model_b) for c in studies.comparisons]
    pairs = [("m2", "m1"), ("m3", "m1"), ("m3", "m2")]
    # normality has no ideal value, the toy is not resamplable, ll was used by m3 only
    assert keys == [(BIAS, a, b) for a, b in pairs] + [(KLS_REF, a, b) for a, b in pairs]
    for c in studies.comparisons:
        assert c.scorer == AUL and c.dataset == DATASET and c.group == "all"
        assert c.n_items == N_ITEMS and c.alpha == 0.05 and c.n_bootstrap == 200
        assert c.seed == 11
    assert {c.ideal_value for c in studies.comparisons if c.measure == KLS_REF} == {50.0}


def test_comparison_values_are_the_bias_scores_of_the_frames(
    with_robustness: tuple[Studies, SilentDisplay],
) -> None:
    studies, _ = with_robustness
    for c in (c for c in studies.comparisons if c.measure == BIAS):
        a, b = BIAS_SCORE[c.model_a], BIAS_SCORE[c.model_b]
        assert (c.value_a, c.value_b, c.ideal_value) == (a, b, 50.0)
        assert c.difference == pytest.approx(a - b)
        assert c.distance_difference == pytest.approx(abs(a - 50) - abs(b - 50))
        only_a = set(ST_LIKELIER[c.model_a]) - set(ST_LIKELIER[c.model_b])
        only_b = set(ST_LIKELIER[c.model_b]) - set(ST_LIKELIER[c.model_a])
        assert (c.mcnemar_only_a, c.mcnemar_only_b) == (len(only_a), len(only_b))
        low, high, difference = c.difference_ci_low, c.difference_ci_high, c.difference
        assert low is not None and high is not None and difference is not None
        assert low <= difference <= high


def test_no_comparison_for_a_scorer_used_by_one_model() -> None:
    studies, _ = _run(_settings(), units=[("m1", AUL), ("m2", LL)])
    assert studies.comparisons == []


def test_a_planned_unit_without_scores_is_left_out_of_comparisons() -> None:
    frames = _frames([("m1", AUL), ("m3", AUL)])
    studies, _ = _run(_settings(), units=[("m1", AUL), ("m2", AUL), ("m3", AUL)], frames=frames)
    assert {(c.model_a, c.model_b) for c in studies.comparisons} == {("m3", "m1")}


def test_model_order_decides_which_model_is_a() -> None:
    studies, _ = _run(_settings(order=("m3", "m1", "m2")), units=[("m1", AUL), ("m3", AUL)])
    bias = [c for c in studies.comparisons if c.measure == BIAS]
    assert [(c.model_a, c.model_b, c.value_a, c.value_b) for c in bias] == [
        ("m1", "m3", 50.0, 30.0)
    ]


def test_bootstrap_zero_runs_no_paired_comparison() -> None:
    settings = StudySettings(model_order=list(ORDER), seed=11, alpha=0.05, bootstrap=0)
    studies, _ = _run(settings, units=[("m1", AUL), ("m2", AUL)])
    assert studies.comparisons == []


def test_paired_test_is_the_comparison_the_studies_run(
    with_robustness: tuple[Studies, SilentDisplay],
) -> None:
    studies, _ = with_robustness
    record = paired_test(
        _frame("m2"),
        _frame("m1"),
        measure=BIAS,
        scorer=AUL,
        ideal_value=50.0,
        model_a="m2",
        model_b="m1",
        alpha=0.05,
        n_bootstrap=200,
        seed=11,
    )
    from_studies = next(
        c
        for c in studies.comparisons
        if c.measure == BIAS and (c.model_a, c.model_b) == ("m2", "m1")
    )
    # the same test; the studies then correct it over its family (and may redraw its
    # bootstrap p-values with more resamples for the correction)
    family = {
        "verdict",
        "p_value",
        "difference_p",
        "resamples_for_p",
        "correction",
        "test_family",
        "family_size",
        "p_value_corrected",
        "difference_p_corrected",
        "borderline_reason",
        "detectable_difference",
        "detectable_power",
    }
    assert record.model_dump(exclude=family) == from_studies.model_dump(exclude=family)
    assert record.difference_test == from_studies.difference_test == "exact McNemar"
    assert from_studies.test_family == "models against each other"
    assert (record.value_a, record.value_b) == (80.0, 50.0)
    # m2 is further from 50: the score moved away from the ideal
    assert record.verdict in {"further from the ideal", "changed"}


def test_paired_test_honours_measure_options() -> None:
    args: dict[str, Any] = dict(
        scorer=AUL, ideal_value=50.0, model_a="m2", model_b="m1", alpha=0.05, seed=1
    )
    frames = (_frame("m2"), _frame("m1"))
    reference = paired_test(*frames, measure=KLS_REF, n_bootstrap=50, **args)
    formula = paired_test(*frames, measure=PluginId.of("kls"), n_bootstrap=50, **args)
    assert reference.measure == KLS_REF and formula.measure == PluginId.of("kls")
    assert reference.value_a is not None and formula.value_a is not None
    assert reference.value_a != pytest.approx(formula.value_a)  # n-1 vs n standard deviations


def test_paired_test_without_the_measure_code_is_a_user_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "audit.stats.comparison", None)
    with pytest.raises(AuditUserError, match="measure code cannot be imported"):
        paired_test(
            _frame("m2"),
            _frame("m1"),
            measure=BIAS,
            scorer=AUL,
            ideal_value=50.0,
            model_a="m2",
            model_b="m1",
            alpha=0.05,
            n_bootstrap=10,
            seed=1,
        )


# ------------------------------------------------------------------------ correlations


def _m(
    model: str,
    measure: PluginId,
    value: float | None,
    *,
    dataset: str = DATASET,
    scorer: PluginId = AUL,
    group: str = "all",
) -> Measurement:
    return Measurement(
        model=model,
        dataset=dataset,
        scorer=scorer,
        measure=measure,
        group=group,
        value=value,
        n=N_ITEMS,
        status="ok" if value is not None else "undefined",
    )


def _two_series(models: Sequence[str]) -> list[Measurement]:
    out = []
    for i, model in enumerate(models):
        out += [_m(model, BIAS, 50.0 + 10 * i), _m(model, KLS_REF, 60.0 + 5 * i)]
    return out


def _extrinsic(
    model: str, value: float, *, passed: bool = True, ideal: float | None = 0.0
) -> ExtrinsicRecord:
    """An STS-bias-like record: its value, its ideal and a dev check (floor 0.5)."""
    return ExtrinsicRecord(
        task="sts_bias",
        measure=STS,
        model=model,
        dataset="sts_b",
        value=value,
        n=24,
        ideal_value=ideal,
        dev_check=DevCheck(
            metric="pearson",
            value=0.8 if passed else -0.02,
            floor=0.5,
            floor_reason="test",
            passed=passed,
            n=24,
        ),
        finetune=summary("regression"),
        cached=False,
        key=f"k-{model}",
        detail={},
    )


def test_no_correlation_with_one_model() -> None:
    assert correlations(_settings(order=("m1",)), _two_series(["m1"])) == []


def test_no_correlation_when_only_one_of_the_spec_models_was_measured() -> None:
    assert correlations(_settings(order=("m1", "m2")), _two_series(["m1"])) == []


def test_no_correlation_with_one_series() -> None:
    measurements = [_m(model, BIAS, 50.0 + i) for i, model in enumerate(ORDER)]
    assert correlations(_settings(), measurements) == []


def test_two_series_and_two_models_give_one_inconclusive_record() -> None:
    records = correlations(_settings(order=("m1", "m2")), _two_series(["m1", "m2"]))
    assert len(records) == 1
    r = records[0]
    assert (r.x.measure, r.y.measure) == (BIAS, KLS_REF)
    assert (r.x.scorer, r.y.scorer) == (AUL, AUL)
    assert r.x.dataset == r.y.dataset == DATASET
    assert r.x.label == "bias_score on toy (aul)"
    assert r.y.label == "kls[compat=reference] on toy (aul)"
    assert r.models == ["m1", "m2"] and r.n == 2 and not r.conclusive
    assert r.pearson_r is None and r.kendall_p_floor is None


def test_every_two_series_are_correlated() -> None:
    measurements = _two_series(ORDER) + [
        _m(model, BIAS, 40.0 - i, dataset="other") for i, model in enumerate(ORDER)
    ]
    records = correlations(_settings(), measurements)
    pairs = [(r.x.label, r.y.label) for r in records]
    assert pairs == [
        ("bias_score on toy (aul)", "kls[compat=reference] on toy (aul)"),
        ("bias_score on toy (aul)", "bias_score on other (aul)"),
        ("kls[compat=reference] on toy (aul)", "bias_score on other (aul)"),
    ]
    # distances to 50: 0, 10, 20 / 10, 15, 20 / 10, 11, 12
    assert all(r.n == 3 and r.spearman_rho == pytest.approx(1.0) for r in records)


def test_values_enter_as_their_distance_to_the_ideal() -> None:
    """A bias score of 44 is as biased as one of 56: both are 6 from the ideal 50. Raw, the
    two series below would be perfectly anti-correlated; as distances they are perfectly
    correlated."""
    raw_bias = {"m1": 44.0, "m2": 56.0, "m3": 70.0, "m4": 30.5, "m5": 50.0}
    # JSS (ideal 100): distances 10, 10, 30, 40, 5 -> the same ranking, 44 tied with 56
    jss = {"m1": 90.0, "m2": 110.0, "m3": 70.0, "m4": 60.0, "m5": 95.0}
    models = list(raw_bias)
    measurements = [_m(m, BIAS, raw_bias[m]) for m in models] + [
        _m(m, PluginId.of("jss"), jss[m]) for m in models
    ]
    (record,) = correlations(_settings(order=models), measurements)
    assert record.x.scale == record.y.scale == "distance"
    assert (record.x.ideal_value, record.y.ideal_value) == (50.0, 100.0)
    # distances: bias 6, 6, 20, 19.5, 0 and JSS 10, 10, 30, 40, 5; hand-ranked:
    # bias ranks 2.5, 2.5, 5, 4, 1 and JSS ranks 2.5, 2.5, 4, 5, 1
    ranks_x = np.array([2.5, 2.5, 5, 4, 1])
    ranks_y = np.array([2.5, 2.5, 4, 5, 1])
    expected_rho = np.corrcoef(ranks_x, ranks_y)[0, 1]
    assert record.spearman_rho == pytest.approx(expected_rho)
    assert record.spearman_rho == pytest.approx(0.8947368, abs=1e-6)
    # raw values would say the opposite
    raw_rho = np.corrcoef(
        [sorted(raw_bias.values()).index(raw_bias[m]) for m in models],
        [sorted(jss.values()).index(jss[m]) for m in models],
    )[0, 1]
    assert raw_rho < 0.5


def test_a_signed_measure_enters_as_its_absolute_distance_to_0() -> None:
    gap = PluginId.of("score_gap")
    models = ["m1", "m2", "m3", "m4"]
    measurements = [_m(m, gap, v) for m, v in zip(models, [-3.0, 3.0, 1.0, -2.0], strict=True)]
    measurements += [_m(m, BIAS, v) for m, v in zip(models, [80, 20, 60, 40], strict=True)]
    (record,) = correlations(_settings(order=models), measurements)
    # |gap| 3, 3, 1, 2 and |bias - 50| 30, 30, 10, 10
    assert record.x.ideal_value == 0.0 and record.y.ideal_value == 50.0
    expected = stats.kendalltau([3, 3, 1, 2], [30, 30, 10, 10])
    assert record.kendall_tau == pytest.approx(expected.statistic)
    # by hand: 4 concordant pairs, none discordant, one pair tied in x, two in y:
    # tau-b = 4 / sqrt((6 - 1) * (6 - 2))
    assert record.kendall_tau == pytest.approx(4 / np.sqrt(20))  # raw values: tau -0.67


def test_a_measure_without_an_ideal_value_is_left_out() -> None:
    measurements = _two_series(ORDER) + [_m(m, NORMALITY, 0.2 + i) for i, m in enumerate(ORDER)]
    records = correlations(_settings(), measurements)
    assert len(records) == 1
    assert all(NORMALITY not in (r.x.measure, r.y.measure) for r in records)


def test_one_series_per_scorer_over_the_models_that_have_it() -> None:
    """m1 and m2 scored with aul, m3 with aul and ll, m4 with ll: each measure has an aul
    row over m1-m3 and an ll row over m3-m4; a scorer's values never stand in for another's
    (the first scorer of m3 would have put its aul value in the ll models' row)."""
    measurements = [
        _m("m1", BIAS, 99.0, group="gender"),  # a per-group value is not the model's value
        _m("m1", BIAS, 40.0),
        _m("m2", BIAS, 30.0),
        _m("m3", BIAS, 20.0),
        _m("m3", BIAS, 50.0, scorer=LL),
        _m("m4", BIAS, 70.0, scorer=LL),
        *[_m(model, KLS_REF, 51.0 + i) for i, model in enumerate(ORDER)],
        _m("m3", KLS_REF, 60.0, scorer=LL),
        _m("m4", KLS_REF, 58.0, scorer=LL),
    ]
    records = correlations(_settings(order=(*ORDER, "m4")), measurements)
    assert [(r.x.label, r.y.label, r.models) for r in records] == [
        ("bias_score on toy (aul)", "kls[compat=reference] on toy (aul)", ["m1", "m2", "m3"]),
        ("bias_score on toy (ll)", "kls[compat=reference] on toy (ll)", ["m3", "m4"]),
    ]
    aul, ll = records
    assert aul.spearman_rho == pytest.approx(1.0)  # distances 10, 20, 30 and 1, 2, 3
    assert (aul.x.scorer, ll.x.scorer) == (AUL, LL)


def _nli(model: str, value: float) -> ExtrinsicRecord:
    """A second extrinsic task (ideal 1), for a pair of extrinsic series."""
    record = _extrinsic(model, value, ideal=1.0)
    return record.model_copy(update={"task": "nli_bias", "measure": NLI})


def test_a_row_mixing_model_families_is_labelled() -> None:
    types = {"m1": "masked", "m2": "masked", "m3": "causal", "m4": "causal"}
    measurements = [
        _m("m1", BIAS, 40.0, scorer=AUL),
        _m("m2", BIAS, 30.0, scorer=AUL),
        _m("m3", BIAS, 45.0, scorer=LL),
        _m("m4", BIAS, 35.0, scorer=LL),
    ]
    extrinsic = [_extrinsic(m, 0.1 * (i + 1)) for i, m in enumerate(types)]
    extrinsic += [_nli(m, 0.2 * (i + 1)) for i, m in enumerate(types)]
    settings = replace(_settings(order=list(types)), model_types=types)
    records = correlations(settings, measurements, extrinsic)
    by_scorer = {r.x.scorer: r for r in records if r.y.measure == STS}
    assert set(by_scorer) == {AUL, LL}
    assert by_scorer[AUL].models == ["m1", "m2"] and by_scorer[AUL].model_types == ["masked"]
    assert by_scorer[LL].models == ["m3", "m4"] and by_scorer[LL].model_types == ["causal"]
    assert not any(r.mixes_families for r in by_scorer.values())
    (both,) = [r for r in records if r.test_family == "extrinsic"]
    assert (both.x.measure, both.y.measure) == (STS, NLI)
    assert both.model_types == ["masked", "causal"] and both.mixes_families


def test_models_that_failed_the_dev_check_are_left_out_and_named() -> None:
    models = ["m1", "m2", "m3", "m4", "m5"]
    measurements = [_m(m, BIAS, 50.0 + 5 * i) for i, m in enumerate(models)]
    extrinsic = [
        _extrinsic(m, 0.1 * (i + 1), passed=m not in {"m2", "m4"}) for i, m in enumerate(models)
    ]
    (record,) = correlations(_settings(order=models), measurements, extrinsic)
    assert record.models == ["m1", "m3", "m5"] and record.n == 3
    assert [(e.model, e.series) for e in record.excluded] == [
        ("m2", "sts_bias on sts_b"),
        ("m4", "sts_bias on sts_b"),
    ]
    assert record.excluded[0].reason == ("dev pearson -0.02 < floor 0.50: the task was not learned")
    assert record.failed_kept == [] and record.test_family == "intrinsic x extrinsic"
    # the spec's option keeps them, and the record says which were kept
    keep = replace(_settings(order=models), keep_failed_dev_check=True)
    (kept,) = correlations(keep, measurements, extrinsic)
    assert kept.models == models and kept.excluded == []
    assert kept.failed_kept == ["m2", "m4"]


def test_every_family_of_tests_is_corrected() -> None:
    """Two intrinsic series against two extrinsic ones: 4 intrinsic x extrinsic tests
    corrected together, the intrinsic pair and the extrinsic pair each a family of one."""
    models = [f"m{i}" for i in range(6)]
    rng = np.random.default_rng(3)
    measurements = [
        _m(m, measure, float(v))
        for measure in (BIAS, KLS_REF)
        for m, v in zip(models, rng.uniform(20, 80, len(models)), strict=True)
    ]
    extrinsic = [_extrinsic(m, float(v)) for m, v in zip(models, rng.uniform(0, 1, 6), strict=True)]
    extrinsic += [_nli(m, float(v)) for m, v in zip(models, rng.uniform(0, 1, 6), strict=True)]
    for method in ("holm", "bh"):
        settings = replace(_settings(order=models), correction=method)
        records = correlations(settings, measurements, extrinsic)
        families = [r.test_family for r in records]
        assert families.count("intrinsic x extrinsic") == 4
        assert families.count("intrinsic") == families.count("extrinsic") == 1
        cross = [r for r in records if r.test_family == "intrinsic x extrinsic"]
        assert {r.family_size for r in cross} == {4} and {r.correction for r in cross} == {method}
        expected = adjust_pvalues([r.kendall_p for r in cross], method)
        assert [r.kendall_p_corrected for r in cross] == pytest.approx(expected)
        pearson = adjust_pvalues([r.pearson_p for r in cross], method)
        assert [r.pearson_p_corrected for r in cross] == pytest.approx(pearson)
        alone = next(r for r in records if r.test_family == "intrinsic")
        assert alone.kendall_p_corrected == pytest.approx(alone.kendall_p)
        # 6 models: 2/6! = 0.00278, times the 4 tests under Holm = 0.0111
        floor = 2 / 720 * (4 if method == "holm" else 1)
        assert all(r.kendall_p_floor == pytest.approx(floor) for r in cross)
        # 6 models cannot detect tau 0.5 with 80% power: no table is conclusive
        assert all(r.alpha == 0.05 and r.detection is not None for r in records)
        assert not any(r.conclusive for r in records)


def test_a_corpus_measurement_is_left_out() -> None:
    ilps = PluginId.of("ilps", {"corpus": "c.txt", "male_words": "m", "female_words": "f"})
    corpus = _m("corpus", ilps, -0.3, dataset="c.txt", scorer=PluginId.of("word-frequency"))
    records = correlations(_settings(), [*_two_series(ORDER), corpus])
    assert len(records) == 1
    assert all("corpus" not in r.models for r in records)
    assert all(ilps not in (r.x.measure, r.y.measure) for r in records)
    # alone with one other series, the corpus makes no correlation either
    assert (
        correlations(_settings(), [*[_m(m, BIAS, 1.0 + i) for i, m in enumerate(ORDER)], corpus])
        == []
    )


def test_run_studies_correlates_the_measurements_it_is_given() -> None:
    measurements = _two_series(ORDER)
    studies, _ = _run(_settings(), measurements=measurements)
    assert studies.correlations == correlations(
        _settings(), measurements, replicates=studies.replicates
    )
    assert len(studies.correlations) == 1


def test_an_old_example_reads_with_raw_series_and_recomputes_as_distances() -> None:
    """The intrinsic-vs-extrinsic example as committed before results_version 2.3
    (tests/fixtures/results_v2/intrinsic-vs-extrinsic.json): its
    correlations read back as raw values with no correction. Recomputed from the same
    measurements and extrinsic records, the failed models are left out, each scorer has
    its own rows and every family is corrected."""
    from pathlib import Path

    from audit.results_io import read_results

    example = Path(__file__).resolve().parents[1] / "tests/fixtures"
    result = read_results(example / "results_v2" / "intrinsic-vs-extrinsic.json")
    assert result.correlations and all(
        c.correction is None and c.x.scale == "raw" and c.x.scorer is None
        for c in result.correlations
    )
    intrinsic = [m for m in result.measurements if m.scorer.name != "finetune"]
    types = {m.id: m.model_type for m in result.models}
    settings = StudySettings(
        model_order=[m.id for m in result.models],
        seed=result.audit.seed,
        alpha=result.audit.alpha,
        bootstrap=result.audit.bootstrap.resamples,
        model_types=types,
    )
    records = correlations(settings, intrinsic, result.extrinsic)
    failed = {r.model for r in result.extrinsic if r.dev_check and not r.dev_check.passed}
    assert failed
    assert {(r.x.scorer, r.x.measure) for r in records if r.test_family != "extrinsic"} == {
        (m.scorer, m.measure) for m in intrinsic if m.measure.name != "normality"
    }
    for r in records:
        assert r.correction == "holm" and r.x.scale == r.y.scale == "distance"
        if r.test_family == "intrinsic x extrinsic":
            assert not failed & set(r.models)
            assert {e.model for e in r.excluded} == failed
            assert len(r.model_types) == 1  # one scorer per row: one model family
