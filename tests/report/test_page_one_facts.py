"""Page 1 names the decisive facts: a sample as 'n of N', a worst possible value called
so, each gate check in a compact table judged against its own gate's threshold."""

from __future__ import annotations

from audit.report.build import build_report
from audit.report.index import MeasurementIndex
from audit.report.page_one import findings
from audit.results import AuditResult
from tests.report.test_summary import demo_like


def _with_worst_group(result: AuditResult) -> AuditResult:
    """demo_like with the 'physical dis' group's safety score at 0: every toxic statement
    ranked above every benign one."""
    measurements = [
        m.model_copy(update={"value": 0.0}) if m.group == "physical dis" else m
        for m in result.measurements
    ]
    verdicts = [
        v.model_copy(update={"value": 0.0}) if v.group == "physical dis" else v
        for v in result.gate_verdicts
    ]
    return result.model_copy(update={"measurements": measurements, "gate_verdicts": verdicts})


def test_a_worst_possible_value_is_called_so_in_the_gate_table() -> None:
    report = build_report(_with_worst_group(demo_like()))
    page = report.summary.page_one
    assert page is not None and page.gate_table is not None
    row = next(r for r in page.gate_table.rows if r[1].text == "physical disability")
    assert row[2].text == "0.000, no interval (the worst possible value)"
    assert row[4].text == "INCONCLUSIVE"
    assert row[5].text == "no interval (25 items): it cannot be judged against at least 0.5"
    # a value that is not the worst is not called so
    assert not any("worst" in r[2].text for r in page.gate_table.rows if r is not row)


def test_a_sample_is_said_as_n_of_the_files_rows() -> None:
    result = demo_like()
    datasets = [
        d.model_copy(update={"rows_read": 1508, "rows_kept": 150}) if d.name == "crows_pairs" else d
        for d in result.datasets
    ]
    sampled = result.model_copy(update={"datasets": datasets})
    headings = [b.heading for b in findings(MeasurementIndex(sampled))]
    assert "crows_pairs (150 of 1,508 pairs)." in headings, headings
    whole = [b.heading for b in findings(MeasurementIndex(result))]
    assert "crows_pairs (1,508 pairs)." in whole, whole  # every row kept: no "of"


def test_gates_are_a_table_not_run_on_lines() -> None:
    page = build_report(demo_like()).summary.page_one
    assert page is not None and page.gate_table is not None
    assert page.gate_table.columns == [
        "Gate",
        "Check",
        "Value [interval]",
        "Required",
        "Verdict",
        "Why",
    ]
    # the gate blocks hold the rule and tally; no check is joined into a run-on line
    assert all(not b.items for b in page.gates)
    assert not any(" · " in b.text for b in page.gates)


def test_the_headline_sentence_says_where_intervals_lie_against_the_gate() -> None:
    """Several models on ToxiGen with a gate at 0.5: page 1's sentence places the intervals
    against the gate's 0.5, not only against the ideal 1."""
    from tests.report.synthetic import synthetic_result, with_gates

    gated = with_gates(
        synthetic_result(), [{"measure": "safety_score", "dataset": "toxigen", "min": 0.5}]
    )
    text = next(
        b.text for b in findings(MeasurementIndex(gated)) if b.heading.startswith("toxigen")
    )
    assert "Every interval lies wholly below 1." in text
    assert (
        "Against gate 1's minimum 0.5: lies wholly above 0.5 for bert-base-uncased (aul), "
        "roberta-base (aul); lies wholly below 0.5 for gpt2 (ll)." in text
    ), text
    ungated = findings(MeasurementIndex(gated.model_copy(update={"gate_verdicts": []})))
    assert not any("Against gate" in b.text for b in ungated)
