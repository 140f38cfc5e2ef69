"""Caveats fire only on what they claim and list each trigger once."""

from __future__ import annotations

from audit.ids import PluginId
from audit.report.caveats import build_caveats
from audit.report.charts import distribution_chart
from audit.report.index import MeasurementIndex
from audit.report.model import Caveat
from audit.report.studies import StudyData
from audit.results import AuditResult, Measurement
from tests.report.synthetic import small_result, synthetic_scores


def m(
    model: str, measure: str, value: float | None, *, scorer: str = "ll", **kw: object
) -> Measurement:
    base: dict[str, object] = dict(
        model=model,
        dataset="crows_pairs",
        scorer=PluginId.of(scorer),
        measure=PluginId.of(measure),
        group="all",
        n=200,
    )
    base.update(kw)
    if value is not None and "ci_low" not in base:
        base.update(ci_low=value - 1, ci_high=value + 1)
    return Measurement(value=value, **base)  # type: ignore[arg-type]


def caveats(result: AuditResult) -> dict[str, Caveat]:
    return {c.id: c for c in build_caveats(MeasurementIndex(result), StudyData.of(result))}


def test_ranking_needs_two_models_not_two_scorers() -> None:
    # one model, two scorers whose measures order them differently: no ranking of models
    one_model = small_result(
        [
            m("model-a", "bias_score", 52.0, scorer="ll"),
            m("model-a", "bias_score", 60.0, scorer="aul"),
            m("model-a", "kls", 70.0, scorer="ll"),
            m("model-a", "kls", 55.0, scorer="aul"),
        ],
        models=("model-a",),
    )
    assert "ranking-disagreement" not in caveats(one_model)
    # two models, one scorer, two measures that disagree: the caveat, naming the scorer
    two_models = small_result(
        [
            m("model-a", "bias_score", 52.0),
            m("model-b", "bias_score", 60.0),
            m("model-a", "kls", 70.0),
            m("model-b", "kls", 55.0),
        ]
    )
    ranking = caveats(two_models)["ranking-disagreement"]
    assert "scored by ll" in ranking.trigger
    assert "Bias score: model-a < model-b" in ranking.trigger
    assert "KLS: model-b < model-a" in ranking.trigger
    # two models that every measure orders alike: no caveat
    agree = small_result(
        [
            m("model-a", "bias_score", 52.0),
            m("model-b", "bias_score", 60.0),
            m("model-a", "kls", 55.0),
            m("model-b", "kls", 70.0),
        ]
    )
    assert "ranking-disagreement" not in caveats(agree)


def test_no_value_lists_each_measurement_once_with_its_scorer() -> None:
    undefined = dict(status="undefined", note="all 3 pairs tie (equal scores)", n=3)
    result = small_result(
        [
            m("model-a", "bias_score", None, scorer="ll", **undefined),
            m("model-a", "bias_score", None, scorer="aul", **undefined),
            m("model-a", "bias_score", None, scorer="aul", group="age", **undefined),
        ],
        models=("model-a",),
    )
    trigger = caveats(result)["undefined"].trigger
    entries = trigger.split("; ")
    assert len(entries) == len(set(entries)) == 3
    assert "Bias score of model-a (ll) on crows_pairs: all 3 pairs tie" in trigger
    assert "Bias score of model-a (aul) on crows_pairs: all 3 pairs tie" in trigger
    assert "Bias score of model-a (aul) on crows_pairs, age: all 3 pairs tie" in trigger


def test_values_without_an_interval_get_their_own_caveat() -> None:
    withheld = "too few items for an interval (n=2, need at least 10)"
    result = small_result(
        [
            m(
                "model-a",
                "kls",
                75.0,
                group="disability",
                n=2,
                ci_low=None,
                ci_high=None,
                note=withheld,
                details={"interval": {"withheld": withheld}},
            ),
            m("model-a", "kls", 60.0),
        ],
        models=("model-a",),
    )
    found = caveats(result)
    assert (
        found["no-interval"].trigger
        == f"KLS of model-a (ll) on crows_pairs, disability: {withheld}"
    )
    assert found["no-interval"].severity == "info"


def test_normality_caveat_and_caption_only_with_a_gaussian_measure() -> None:
    not_normal = m("model-a", "normality", 0.001, p_value=0.001, ci_low=None, ci_high=None)
    alone = small_result([not_normal, m("model-a", "bias_score", 55.0)], models=("model-a",))
    assert "non-normal" not in caveats(alone)
    with_kls = small_result(
        [not_normal, m("model-a", "bias_score", 55.0), m("model-a", "kls", 60.0)],
        models=("model-a",),
    )
    caveat = caveats(with_kls)["non-normal"]
    assert caveat.title == "Non-normal score sets weaken KLS"
    assert "JSS" not in caveat.title + caveat.text
    scores = synthetic_scores()
    scores = scores[scores["model"] == scores["model"].iloc[0]].assign(model="model-a")
    for result, named in ((alone, False), (with_kls, True)):
        index = MeasurementIndex(result)
        unit_scorer = index.units("crows_pairs")[0].scorer
        chart = distribution_chart(scores.assign(scorer=unit_scorer.label), index, "crows_pairs")
        assert chart is not None
        assert ("KLS" in chart.caption) is named
        assert "JSS" not in chart.caption


def test_cache_repairs_are_listed() -> None:
    from audit.results import UnitRecord

    result = small_result([m("model-a", "bias_score", 52.0)], models=("model-a",))
    assert "cache-repaired" not in caveats(result)
    unit = UnitRecord(
        model="model-a",
        dataset="crows_pairs",
        scorer=PluginId.of("ll"),
        sentences=10,
        computed=10,
        cached=0,
        corrupt=1,
        set_aside=["cache/scores/ab/abc/scores.corrupt-1.sqlite"],
        seconds=1.0,
    )
    repaired = caveats(result.model_copy(update={"units": [unit]}))["cache-repaired"]
    assert repaired.trigger == (
        "model-a x crows_pairs x ll: 1 corrupt entry recomputed; database set aside as "
        "cache/scores/ab/abc/scores.corrupt-1.sqlite"
    )
