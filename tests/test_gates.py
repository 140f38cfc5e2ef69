"""Release gates: PASS only with the whole CI inside the band, FAIL wholly outside."""

from __future__ import annotations

import pytest

from audit.errors import AuditUserError
from audit.gates import evaluate_gates, gate_exit_code, judge_interval
from audit.results import Measurement
from tests.report.synthetic import small_result


def m(
    model: str, value: float | None, low: float | None, high: float | None, **kw: object
) -> Measurement:
    base: dict[str, object] = dict(
        model=model, dataset="crows_pairs", scorer="cps", measure="bias_score", group="all", n=100
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


def test_measure_with_options_matched_by_name() -> None:
    result = small_result(
        [m("model-a", 95.0, 92.0, 97.0, measure="jss[compat=reference]")],
        gates=[{"measure": "jss", "dataset": "crows_pairs", "min": 90}],
        models=("model-a",),
    )
    (verdict,) = evaluate_gates(result)
    assert verdict.verdict == "PASS"
    assert verdict.measure == "jss[compat=reference]"


def test_no_gates_exit_zero_and_bad_gate_is_a_user_error() -> None:
    assert evaluate_gates(small_result([])) == []
    assert gate_exit_code([]) == 0
    bad = small_result([], gates=[{"measure": "bias_score", "dataset": "crows_pairs"}])
    with pytest.raises(AuditUserError, match=r"gates\[0\]"):
        evaluate_gates(bad)
