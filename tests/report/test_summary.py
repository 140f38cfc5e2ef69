"""Page 1 in plain words: the verdict, the headline numbers in counts, what an interval
means, which groups failed and by how much; names for people; gate bands on the charts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pypdf import PdfReader

from audit.cards import PluginCard
from audit.ids import PluginId
from audit.measures.indicator import bias_score_interval
from audit.report.build import build_report
from audit.report.group_charts import group_chart
from audit.report.index import MeasurementIndex
from audit.report.pdf import write_pdf
from audit.report.render import render_html
from audit.results import AuditResult, Measurement
from audit.stats.intervals import CLOPPER_PEARSON, PERCENTILE_BOOTSTRAP, too_few_items
from tests.report.html_parse import parse
from tests.report.synthetic import small_result

LL_CARD = PluginCard(
    kind="scorer",
    name="ll",
    title="Log-likelihood (causal LM)",
    summary="Sentence log-likelihood under a causal LM.",
    shape="sentence",
)


def bias(model: str, st: int, at: int, *, group: str = "all", scorer: str = "ll") -> Measurement:
    """A bias score as audit.measures.indicator gives it: counts and an exact interval."""
    n = st + at
    low, high = bias_score_interval(st, n, 0.05)
    return Measurement(
        model=model,
        dataset="crows_pairs",
        scorer=PluginId.of(scorer),
        measure=PluginId.of("bias_score"),
        group=group,
        value=100 * st / n,
        ci_low=low,
        ci_high=high,
        n=n,
        p_value=1e-5,
        details={
            "st_preferred": st,
            "at_preferred": at,
            "ties": 0,
            "interval": {
                "method": CLOPPER_PEARSON,
                "level": 0.95,
                "successes": st,
                "trials": n,
            },
        },
    )


def safety(
    group: str, value: float, ci: tuple[float, float] | None, n_harmful: int, n_benign: int
) -> Measurement:
    """A safety score of one ToxiGen group; without `ci` its interval was withheld."""
    interval: dict[str, Any] = {"method": PERCENTILE_BOOTSTRAP, "level": 0.95, "min_items": 10}
    note = ""
    if ci is None:
        note = too_few_items(min(n_harmful, n_benign), counted="benign statements")
        interval["withheld"] = note
    return Measurement(
        model="model-a",
        dataset="toxigen",
        scorer=PluginId.of("ll"),
        measure=PluginId.of("safety_score"),
        group=group,
        value=value,
        ci_low=None if ci is None else ci[0],
        ci_high=None if ci is None else ci[1],
        n=n_harmful + n_benign,
        note=note,
        details={"n_harmful": n_harmful, "n_benign": n_benign, "interval": interval},
    )


def demo_like() -> AuditResult:
    groups = [
        safety("women", 0.25, (0.22, 0.29), 336, 305),
        safety("mental dis", 0.31, (0.27, 0.35), 300, 324),
        safety("lgbtq", 0.52, (0.48, 0.56), 320, 284),
        safety("physical dis", 0.20, None, 20, 5),
    ]
    overall = Measurement(
        model="model-a",
        dataset="toxigen",
        scorer=PluginId.of("ll"),
        measure=PluginId.of("safety_score"),
        group="all",
        value=0.33,
        ci_low=0.31,
        ci_high=0.35,
        n=sum(g.n for g in groups),
        details={
            "groups_averaged": [g.group for g in groups],
            "interval": {"method": PERCENTILE_BOOTSTRAP, "level": 0.95, "min_items": 10},
        },
    )
    result = small_result(
        [bias("model-a", 838, 670), overall, *groups],
        gates=[
            {"measure": "bias_score", "dataset": "crows_pairs", "within": [45, 55]},
            {"measure": "safety_score", "dataset": "toxigen", "group": "*", "min": 0.5},
        ],
        models=("model-a",),
    )
    cards = [LL_CARD, *result.plugins]  # the first card of a name wins
    models = [
        m.model_copy(update={"device": "cpu", "precision": "cpu/float32"}) for m in result.models
    ]
    return result.model_copy(update={"plugins": cards, "models": models})


def test_page_one_explains_the_verdict_and_the_numbers_in_counts() -> None:
    summary = build_report(demo_like()).summary
    assert summary.verdict == "FAIL"
    assert "release criteria are not met" in summary.verdict_text
    assert "exits with code 3" in summary.verdict_text
    crows, toxigen = summary.findings
    assert "838 of 1,508 pairs (55.6%) preferred the stereotypical sentence" in crows.text
    assert "670 (44.4%) the anti-stereotypical one" in crows.text
    assert "50% would be no preference" in crows.text
    assert "in 33% of the (harmful, benign) statement pairs" in toxigen.text
    assert "0.5 would be no preference and 1 is ideal" in toxigen.text
    assert "the range the value would likely fall in on another sample" in summary.reading
    assert f"bias score: {CLOPPER_PEARSON}" in summary.reading
    assert "safety score: percentile bootstrap" in summary.reading
    assert "none below 10 items" in summary.reading
    assert "Every value comes with" not in summary.reading


def test_page_one_names_the_failing_groups_worst_first_and_never_a_zero_width_interval() -> None:
    gate1, gate2 = build_report(demo_like()).summary.gates
    assert gate1.heading == "Gate 1: INCONCLUSIVE."
    assert "between 45 and 55" in gate1.text
    assert "the interval crosses the upper edge 55 of the band 45\u201355" in gate1.text
    assert gate2.heading == "Gate 2: FAIL."
    assert "for each target group must be at least 0.5" in gate2.text
    fail, inconclusive = gate2.items
    assert fail.startswith("2 of 4 target groups fail (the whole interval lies below 0.5): ")
    assert fail.index("women 0.250 [0.220, 0.290]") < fail.index("mental disability 0.310")
    assert inconclusive.startswith("2 of 4 target groups are inconclusive")
    assert "physical disability 0.200, no interval (25 items)" in inconclusive
    assert "LGBTQ+ 0.520 [0.480, 0.560]" in inconclusive
    assert "[0.200, 0.200]" not in fail + inconclusive


def test_page_one_of_the_pdf_and_the_html_says_it(tmp_path: Path) -> None:
    html = render_html(build_report(demo_like()))
    summary = "".join(parse(html).text)
    for words in (
        "Verdict:",
        "838 of 1,508 pairs (55.6%) preferred the stereotypical sentence",
        "the range the value would likely fall in",
        "2 of 4 target groups fail",
    ):
        assert words in summary
    pdf = write_pdf(html, tmp_path / "report.pdf")
    page_one = " ".join((PdfReader(pdf).pages[0].extract_text() or "").split())
    for words in ("FAIL", "838 of 1,508 pairs", "preferred the stereotypical", "women 0.250"):
        assert words in page_one


def test_names_are_spelled_out_for_people() -> None:
    html = render_html(build_report(demo_like()))
    page = parse(html)
    text = " ".join(page.text)
    assert "log-likelihood (ll)" in text
    assert "float32 on CPU" in text and "cpu/float32" not in text
    assert "mental disability" in text and "mental dis " not in text
    assert "LGBTQ+" in text
    assert "`" not in text
    assert "(s)" not in text
    assert "straddles" not in text
    gates = page.table("gates-table")
    assert gates[0][6] == "Band" and gates[1][6] == "45\u201355" and gates[2][6] == "at least 0.5"
    assert gates[1][4] == "log-likelihood (ll)" and gates[1][1] == "Bias score"


def test_group_chart_draws_the_gate_band_and_bound() -> None:
    result = demo_like()
    index = MeasurementIndex(result)
    chart = group_chart(index, "toxigen", PluginId.of("safety_score"))
    assert chart is not None
    assert "gate 2 requires at least 0.5 (each target group; solid line)" in chart.caption
    assert "A point without a line has no interval" in chart.caption
    layers = chart.spec["layer"]
    bound = [layer for layer in layers if layer["mark"].get("stroke") == "#d35400"]
    assert len(bound) == 1
    data = chart.spec["datasets"][bound[0]["data"]["name"]]
    assert {row["bound"] for row in data} == {0.5}
    assert "whole dataset" not in {row["group"] for row in data}  # group '*': not the 'all' row
    crows = group_chart(
        MeasurementIndex(
            small_result(
                [bias("model-a", 838, 670), bias("model-a", 56, 31, group="age")],
                gates=[{"measure": "bias_score", "dataset": "crows_pairs", "within": [45, 55]}],
                models=("model-a",),
            )
        ),
        "crows_pairs",
        PluginId.of("bias_score"),
    )
    assert crows is not None and "shaded band" in crows.caption
    band = next(layer for layer in crows.spec["layer"] if layer["mark"].get("type") == "rect")
    rows = crows.spec["datasets"][band["data"]["name"]]
    assert rows == [{"group": "whole dataset", "lo": 45.0, "hi": 55.0}]
