"""Release gates: PASS only with the whole CI inside the band, FAIL wholly outside."""

from __future__ import annotations

import pytest

from audit.gates import describe_verdict, evaluate_gates, gate_exit_code, id_matches, judge_interval
from audit.ids import PluginId
from audit.results import Measurement
from tests.report.synthetic import small_result


def m(
    model: str,
    value: float | None,
    low: float | None,
    high: float | None,
    *,
    measure: PluginId | str = "bias_score",
    scorer: str = "cps",
    **kw: object,
) -> Measurement:
    base: dict[str, object] = dict(
        model=model,
        dataset="crows_pairs",
        scorer=PluginId.of(scorer),
        measure=measure if isinstance(measure, PluginId) else PluginId.of(measure),
        group="all",
        n=100,
    )
    base.update(kw)
    return Measurement(value=value, ci_low=low, ci_high=high, **base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("low", "high", "band", "expected"),
    [
        (46.0, 54.0, (45.0, 55.0), "PASS"),
        (45.0, 55.0, (45.0, 55.0), "PASS"),
        (56.0, 60.0, (45.0, 55.0), "FAIL"),
        (40.0, 44.9, (45.0, 55.0), "FAIL"),
        (53.0, 57.0, (45.0, 55.0), "INCONCLUSIVE"),
        (0.41, 0.6, (0.4, None), "PASS"),
        (0.35, 0.45, (0.4, None), "INCONCLUSIVE"),
        (0.1, 0.3, (0.4, None), "FAIL"),
        (2.0, 9.0, (None, 10.0), "PASS"),
        (11.0, 12.0, (None, 10.0), "FAIL"),
    ],
)
def test_judge_interval(
    low: float, high: float, band: tuple[float | None, float | None], expected: str
) -> None:
    verdict, reason = judge_interval(low, high, *band)
    assert verdict == expected
    assert reason


def test_every_model_judged_with_its_ci() -> None:
    result = small_result(
        [m("model-a", 50.0, 47.0, 53.0), m("model-b", 58.0, 56.0, 60.0)],
        gates=[{"measure": "bias_score", "dataset": "crows_pairs", "within": [45, 55]}],
    )
    verdicts = {v.model: v for v in evaluate_gates(result)}
    assert verdicts["model-a"].verdict == "PASS"
    assert verdicts["model-b"].verdict == "FAIL"
    assert verdicts["model-b"].ci_low == 56.0
    assert gate_exit_code(list(verdicts.values())) == 3


def test_missing_undefined_and_no_ci_are_inconclusive() -> None:
    result = small_result(
        [
            m("model-a", None, None, None, status="undefined", note="every pair tied"),
            m("model-b", 50.0, None, None),
        ],
        gates=[
            {"measure": "bias_score", "dataset": "crows_pairs", "within": [45, 55]},
            {"measure": "bias_score", "dataset": "stereoset", "model": "model-a", "max": 60},
        ],
    )
    verdicts = evaluate_gates(result)
    assert [v.verdict for v in verdicts] == ["INCONCLUSIVE"] * 3
    reasons = [v.reason for v in verdicts]
    assert "every pair tied" in reasons[0]
    assert "no confidence interval" in reasons[1]
    assert "stereoset" in reasons[2] and "model-a" in reasons[2]
    assert gate_exit_code(verdicts) == 3


def test_star_gives_one_verdict_per_group_and_all_pass_exits_zero() -> None:
    groups = [
        m("model-a", 0.6, 0.5, 0.7, measure="safety_score", group=g, dataset="toxigen")
        for g in ("women", "muslim")
    ]
    groups.append(m("model-a", 0.6, 0.55, 0.65, measure="safety_score", dataset="toxigen"))
    result = small_result(
        groups,
        gates=[{"measure": "safety_score", "dataset": "toxigen", "group": "*", "min": 0.4}],
        models=("model-a",),
    )
    verdicts = evaluate_gates(result)
    assert sorted(v.group for v in verdicts) == ["muslim", "women"]
    assert all(v.verdict == "PASS" for v in verdicts)
    assert gate_exit_code(verdicts) == 0


JSS_REFERENCE = PluginId.of("jss", {"compat": "reference"})


def test_measure_with_options_matched_by_name() -> None:
    result = small_result(
        [m("model-a", 95.0, 92.0, 97.0, measure=JSS_REFERENCE)],
        gates=[{"measure": "jss", "dataset": "crows_pairs", "min": 90}],
        models=("model-a",),
    )
    (verdict,) = evaluate_gates(result)
    assert verdict.verdict == "PASS"
    assert verdict.measure == JSS_REFERENCE
    assert verdict.measure.label == "jss[compat=reference]"
    assert result.gate_verdicts == [verdict]


def test_an_exact_label_picks_one_option_set() -> None:
    result = small_result(
        [
            m("model-a", 95.0, 92.0, 97.0, measure=JSS_REFERENCE),
            m("model-a", 80.0, 78.0, 82.0, measure="jss"),
        ],
        gates=[
            {"measure": "jss[compat=reference]", "dataset": "crows_pairs", "min": 90},
            {"measure": "jss", "dataset": "crows_pairs", "min": 90},
            {"measure": "jss[compat=formula]", "dataset": "crows_pairs", "min": 90},
        ],
        models=("model-a",),
    )
    by_gate = [[v for v in evaluate_gates(result) if v.gate_index == i] for i in range(3)]
    assert [v.verdict for v in by_gate[0]] == ["PASS"]
    assert [(v.measure, v.verdict) for v in by_gate[1]] == [(PluginId.of("jss"), "FAIL")]
    (missing,) = by_gate[2]
    assert missing.verdict == "INCONCLUSIVE" and missing.measure.label == "jss[compat=formula]"


def test_id_matches_by_name_or_exact_label() -> None:
    assert id_matches(JSS_REFERENCE, "jss")
    assert id_matches(JSS_REFERENCE, "jss[compat=reference]")
    assert not id_matches(JSS_REFERENCE, "jss[compat=formula]")
    assert not id_matches(JSS_REFERENCE, "js")


def test_scorer_gate_and_verdict_line() -> None:
    result = small_result(
        [m("model-a", 50.0, 47.0, 53.0), m("model-a", 60.0, 58.0, 62.0, scorer="aul")],
        gates=[{"measure": "bias_score", "dataset": "crows_pairs", "scorer": "aul", "max": 55}],
        models=("model-a",),
    )
    (verdict,) = evaluate_gates(result)
    assert verdict.verdict == "FAIL" and verdict.scorer == PluginId.of("aul")
    assert describe_verdict(verdict) == (
        "gate 1 FAIL: bias_score on crows_pairs [model-a/aul/all] = 60 (CI 58 to 62), "
        "required <= 55: the whole interval lies above 55"
    )


def test_no_gates_exit_zero() -> None:
    assert evaluate_gates(small_result([])) == []
    assert gate_exit_code([]) == 0
