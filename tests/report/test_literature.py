"""The "Compared with the literature" section: the papers' figures with their sources, the
agreement verdicts on hand-made records (agree, partly, cannot tell, disagree, not
comparable), fields of results.json 4.0 picked up when present, the section absent
without a study to compare, and a committed example's rendered section."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from audit.ids import PluginId
from audit.report.build import build_report
from audit.report.cards import MeasureCards
from audit.report.index import MeasurementIndex
from audit.report.literature import literature_section, literature_table
from audit.report.literature_agreement import (
    correlation_finding,
    direction_finding,
    order_finding,
)
from audit.report.literature_figures import (
    FIGURES,
    KANEKO_2022_FIGURE_1,
    KANEKO_2022_TABLE_2,
    KANEKO_2023_TABLE_1,
    PAGE_NOT_ESTABLISHED,
)
from audit.report.literature_limits import (
    comparison_power_words,
    correlation_power_words,
    meta_power_words,
)
from audit.report.render import render_html
from audit.results import (
    ComparisonRecord,
    ControlCheck,
    CorrelationRecord,
    CorrelationWithRatio,
    DetectionLimit,
    MeasureSeries,
    MetaEvaluation,
    PowerAt,
)
from audit.results_io import read_results, read_scores
from tests.report.html_parse import parse
from tests.report.synthetic import synthetic_result, synthetic_scores

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
CARDS = MeasureCards([])
BIAS = PluginId.of("bias_score")


# ------------------------------------------------------------------ the papers' figures


def test_every_figure_has_its_table_and_page_or_says_the_page_is_not_established() -> None:
    for figure in FIGURES:
        assert figure.table.startswith(("Table ", "Figure ")), figure
        assert figure.section.startswith("§"), figure
        assert figure.page == PAGE_NOT_ESTABLISHED or figure.page.startswith("p. "), figure
        paper = figure.paper
        assert paper.venue and paper.pages and paper.pages_source and paper.text_source
        source = figure.source()
        assert figure.table in source and paper.venue in source
        if figure.page == PAGE_NOT_ESTABLISHED:
            assert PAGE_NOT_ESTABLISHED in source and paper.pages in source


def test_table_2_gives_the_published_range_and_strongest_pair() -> None:
    table = KANEKO_2022_TABLE_2
    assert table.before_range() == (-0.20, 0.53)
    assert table.after_range() == (-0.17, 0.38)
    top = table.strongest()
    assert (top.intrinsic.name, top.extrinsic.name, top.before) == ("SSS", "STS-bias", 0.53)
    assert sum(c.significant_before for c in table.cells) == 2
    assert sum(c.significant_after for c in table.cells) == 1
    assert [m.name for m in KANEKO_2023_TABLE_1.order] == ["AULA", "AUL", "CPS", "SSS"]


# --------------------------------------------------------- the meta-evaluation's order


def _ratio_row(
    scorer: str, rho: float, rank: int, ties: bool | None, measure: PluginId = BIAS
) -> CorrelationWithRatio:
    return CorrelationWithRatio(
        measure=measure,
        dataset="crows_pairs",
        scorer=PluginId.of(scorer),
        label=f"{measure.label} ({scorer})",
        values=[0.0] * 11,
        n=11,
        spearman=rho,
        rank=rank,
        ties_first=ties,
    )


def _meta(*rows: CorrelationWithRatio, worked: bool = True) -> MetaEvaluation:
    return MetaEvaluation(
        entry="bc",
        base="base",
        ratios=[r / 10 for r in range(11)],
        models=[f"bc-r{r}" for r in range(11)],
        control=ControlCheck(he_share=[0.5] * 11, worked=worked, reason="probe"),
        rows=list(rows),
    )


def test_order_agrees_when_the_papers_order_is_told_apart() -> None:
    meta = _meta(_ratio_row("aula", 0.9, 1, None), _ratio_row("sss", 0.3, 2, False))
    finding = order_finding(KANEKO_2023_TABLE_1, meta, CARDS)
    assert finding.verdict == "agrees"
    assert "AULA 0.90 > SSS 0.30" in finding.audit
    assert "1 of 1 pair told apart" in finding.why


def test_order_agrees_in_part_when_only_some_pairs_are_told_apart() -> None:
    meta = _meta(
        _ratio_row("aula", 0.9, 1, None),
        _ratio_row("cps", 0.5, 2, False),
        _ratio_row("sss", 0.4, 3, False),
    )
    # AULA > CPS and AULA > SSS are tested (AULA is rank 1); CPS against SSS is not.
    assert order_finding(KANEKO_2023_TABLE_1, meta, CARDS).verdict == "partly agrees"


def test_a_tie_with_rank_1_cannot_tell_even_in_the_opposite_order() -> None:
    # As in the meta-evaluation example: SSS 0.81 > AULA 0.71 > CPS 0.26, rank 1 is KLS.
    meta = _meta(
        _ratio_row("aula", 0.95, 1, None, PluginId.of("kls")),
        _ratio_row("sss", -0.81, 7, True),
        _ratio_row("aula", -0.71, 9, True),
        _ratio_row("cps", 0.26, 15, False),
    )
    finding = order_finding(KANEKO_2023_TABLE_1, meta, CARDS)
    assert finding.verdict == "cannot tell"
    assert "SSS 0.81 > AULA 0.71 > CPS 0.26" in finding.audit
    assert "rank 1: kls on crows_pairs (aula)" in finding.audit
    assert "AULA above CPS as in the paper" in finding.why
    assert "0 of 3 pairs told apart" in finding.why


def test_order_disagrees_only_when_told_apart_and_opposite() -> None:
    meta = _meta(_ratio_row("sss", 0.9, 1, None), _ratio_row("aula", 0.2, 2, False))
    assert order_finding(KANEKO_2023_TABLE_1, meta, CARDS).verdict == "disagrees"
    tied = _meta(_ratio_row("sss", 0.9, 1, None), _ratio_row("aula", 0.2, 2, True))
    assert order_finding(KANEKO_2023_TABLE_1, tied, CARDS).verdict == "cannot tell"


def test_measures_with_identical_values_have_no_order() -> None:
    meta = _meta(_ratio_row("aula", 0.9, 1, None), _ratio_row("sss", 0.9, 1, None))
    finding = order_finding(KANEKO_2023_TABLE_1, meta, CARDS)
    assert finding.verdict == "cannot tell" and "AULA level with SSS" in finding.why


def test_no_order_without_a_working_control_or_two_shared_measures() -> None:
    rows = (_ratio_row("aula", 0.9, 1, None), _ratio_row("sss", 0.3, 2, False))
    failed = order_finding(KANEKO_2023_TABLE_1, _meta(*rows, worked=False), CARDS)
    assert failed.verdict == "not comparable"
    alone = order_finding(KANEKO_2023_TABLE_1, _meta(rows[0]), CARDS)
    assert alone.verdict == "not comparable"


# ------------------------------------------------- intrinsic against extrinsic correlations


def _series(measure: str, dataset: str, scorer: str | None) -> MeasureSeries:
    return MeasureSeries(
        measure=PluginId.of(measure),
        dataset=dataset,
        label=measure,
        scorer=None if scorer is None else PluginId.of(scorer),
        scale="distance",
        ideal_value=0.0,
    )


def _detection(
    power: list[tuple[float, float]],
    power_at_effect: float,
    *,
    critical_kendall_tau: float | None = 0.45,
    critical_spearman_rho: float | None = 0.6,
) -> DetectionLimit:
    """A results.json 4.0 DetectionLimit with the fields the section reads set."""
    return DetectionLimit(
        test="kendall",
        n=12,
        family_size=24,
        correction="holm",
        alpha=0.05,
        alpha_per_test=0.05 / 24,
        critical_kendall_tau=critical_kendall_tau,
        critical_spearman_rho=critical_spearman_rho,
        power=[PowerAt(tau=t, power=p) for t, p in power],
        effect_size=0.5,
        target_power=0.8,
        power_at_effect=power_at_effect,
        simulations=100,
        seed=0,
        method="test",
    )


def _corr(
    tau: float,
    p: float = 0.5,
    *,
    x: MeasureSeries | None = None,
    detection: DetectionLimit | None = None,
    ci: tuple[float, float] | None = None,
) -> CorrelationRecord:
    fields = dict(
        x=x or _series("kls", "crows_pairs", "aula"),
        y=_series("sts_bias", "sts_b", None),
        models=[f"m{i}" for i in range(12)],
        n=12,
        kendall_tau=tau,
        kendall_p=p,
        kendall_p_corrected=p,
        conclusive=True,
        correction="holm",
        family_size=24,
    )
    if detection is None and ci is None:
        return CorrelationRecord(**fields)
    low, high = ci if ci is not None else (None, None)
    return CorrelationRecord(
        **fields, detection=detection, kendall_tau_ci_low=low, kendall_tau_ci_high=high
    )


def _name(series: MeasureSeries) -> str:
    return series.measure.name


POWERED = _detection([(0.3, 0.5), (0.5, 0.9)], 0.9)
WEAK = _detection([(0.3, 0.1), (0.5, 0.3)], 0.3)


def test_without_a_detection_limit_weak_correlations_cannot_tell() -> None:
    sss = _series("bias_score", "stereoset", "sss")
    records = [_corr(0.2, x=sss), _corr(-0.55, 0.33)]
    finding = correlation_finding(KANEKO_2022_TABLE_2, records, 0.05, _name)
    assert finding.verdict == "cannot tell"
    assert "τ -0.55 to 0.20 over 2 pairs (12 models), 0 significant" in finding.audit
    assert "strongest: kls with sts_bias, -0.55" in finding.audit
    assert "(SSS with STS-bias) here: 0.20" in finding.audit
    assert "before 4.0" in finding.why


def test_weak_correlations_agree_when_the_test_could_have_seen_the_papers() -> None:
    records = [_corr(0.2, detection=POWERED), _corr(-0.4, 0.01, detection=POWERED)]
    finding = correlation_finding(KANEKO_2022_TABLE_2, records, 0.05, _name)
    assert finding.verdict == "agrees" and "power 0.90 to detect τ 0.5" in finding.why
    assert "1 significant after correction" in finding.audit


def test_too_little_power_cannot_tell() -> None:
    finding = correlation_finding(KANEKO_2022_TABLE_2, [_corr(0.1, detection=WEAK)], 0.05, _name)
    assert finding.verdict == "cannot tell" and "power at τ 0.5 is 0.30" in finding.why


def test_a_correlation_told_apart_beyond_the_papers_strongest_disagrees() -> None:
    strong = _corr(-0.8, 0.001, detection=POWERED, ci=(-0.95, -0.6))
    finding = correlation_finding(KANEKO_2022_TABLE_2, [strong, _corr(0.1)], 0.05, _name)
    assert finding.verdict == "disagrees"
    # stronger than the paper's, but its interval reaches 0.53: not told apart
    near = _corr(-0.7, 0.001, detection=POWERED, ci=(-0.9, -0.4))
    assert correlation_finding(KANEKO_2022_TABLE_2, [near], 0.05, _name).verdict == "cannot tell"


def test_no_correlation_is_not_comparable() -> None:
    untested = _corr(0.0).model_copy(update={"kendall_tau": None})
    finding = correlation_finding(KANEKO_2022_TABLE_2, [untested], 0.05, _name)
    assert finding.verdict == "not comparable"


# ------------------------------------------------------------- the direction of debiasing


def _comparison(
    verdict: str, scorer: str = "cps", dataset: str = "crows_pairs", group: str = "all"
) -> ComparisonRecord:
    return ComparisonRecord(
        measure=BIAS,
        dataset=dataset,
        scorer=PluginId.of(scorer),
        group=group,
        model_a="base-cda",
        model_b="base",
        n_items=262,
        value_a=50.0,
        value_b=55.0,
        difference=-5.0,
        ideal_value=50.0,
        distance_difference=-5.0,
        alpha=0.05,
        n_bootstrap=1000,
        seed=0,
        verdict=verdict,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [
        (["closer to the ideal", "closer to the ideal"], "agrees"),
        (["closer to the ideal", "no detectable change"], "partly agrees"),
        (["no detectable change", "changed"], "cannot tell"),
        (["closer to the ideal", "further from the ideal"], "disagrees"),
    ],
)
def test_direction_of_debiasing(verdicts: list[str], expected: str) -> None:
    records = [_comparison(v) for v in verdicts]
    finding = direction_finding(KANEKO_2022_FIGURE_1, records, "base-cda", CARDS)
    assert finding.verdict == expected


def test_only_the_papers_measures_count_for_the_direction() -> None:
    others = [
        _comparison("further from the ideal", scorer="ll"),  # not a scorer of the paper
        _comparison("further from the ideal", scorer="sss"),  # SSS: StereoSet in the paper
        _comparison("further from the ideal", group="gender"),
    ]
    finding = direction_finding(
        KANEKO_2022_FIGURE_1, [*others, _comparison("closer to the ideal")], "base-cda", CARDS
    )
    assert finding.verdict == "agrees"
    assert "of 1 comparison, 1 closer to the ideal" in finding.audit
    assert direction_finding(KANEKO_2022_FIGURE_1, others, "x", CARDS).verdict == "not comparable"


# ------------------------------------------------ the limits read results.json 4.0 fields


def test_the_limits_name_the_detection_limits_when_results_json_has_them() -> None:
    rows = (_ratio_row("aula", 0.9, 1, None),)
    assert meta_power_words(_meta(*rows)) == "no detection limit (results.json before 4.0)"
    meta = _meta(*rows).model_copy(update={"detection": POWERED})
    assert meta_power_words(meta) == "11 ratio models: |ρ| ≥ 0.60 needed, power 0.90 at τ 0.50"
    unreachable = _meta(*rows).model_copy(
        update={"detection": _detection([], 0.0, critical_spearman_rho=None)}
    )
    assert "no |ρ| can reach significance" in meta_power_words(unreachable)
    old = [_corr(0.1)]
    assert (
        correlation_power_words(old)
        == "Holm over 24 tests; no power recorded (results.json before 4.0)"
    )
    new = [_corr(0.1, detection=WEAK)]
    assert correlation_power_words(new) == (
        "Holm over 24 tests: |τ| ≥ 0.45 needed, power 0.30 at τ 0.50"
    )


def test_the_comparisons_limit_is_the_detectable_difference_else_the_intervals() -> None:
    plain = _comparison("no detectable change").model_copy(
        update={"difference_ci_low": -6.0, "difference_ci_high": 4.0}
    )
    assert comparison_power_words([plain], 0.95) == (
        "paired 95% intervals of the differences ±5.0 to ±5.0; verdicts not corrected for "
        "multiple comparisons (results.json before 4.0)"
    )
    corrected = [
        plain.model_copy(
            update={
                "correction": "holm",
                "family_size": 9,
                "detectable_difference": d,
                "detectable_power": 0.8,
            }
        )
        for d in (6.1, 9.3)
    ]
    assert comparison_power_words(corrected, 0.95) == (
        "smallest difference detectable at 80% power: 6.1 to 9.3; verdicts corrected by "
        "Holm over 9 comparisons"
    )


# --------------------------------------------------------------------------- the section


def test_no_study_of_the_papers_means_no_section() -> None:
    result = synthetic_result(synthetic_scores())
    assert not result.meta_evaluations and not result.variants
    report = build_report(result)
    assert report.literature is None
    assert 'id="literature"' not in render_html(report)


def test_the_debiasing_example_cannot_tell_the_direction() -> None:
    result = read_results(EXAMPLES / "debiasing" / "results.json")
    table = literature_table(MeasurementIndex(result))
    assert table is not None and len(table.rows) == 1
    study, _, audit, verdict, limits = table.rows[0]
    assert study.text == "Debiasing" and verdict.text == "cannot tell"
    assert "of 9 comparisons, 0 closer to the ideal, 0 further" in audit.text
    assert "minilm-mlm (22.7M parameters)" in limits.text
    assert "200 training steps" in limits.text and "262 of 1,508 CrowS-Pairs" in limits.text
    assert "left out: smollm2-cda, smollm2-dropout and smollm2-at" in limits.text


def test_the_intrinsic_vs_extrinsic_example_compares_both_studies() -> None:
    result = read_results(EXAMPLES / "intrinsic-vs-extrinsic" / "results.json")
    section = literature_section(MeasurementIndex(result))
    assert section is not None
    rows = section.tables[0].rows
    assert [r[0].text for r in rows] == ["Meta-evaluation minilm-bc", "Intrinsic against extrinsic"]
    assert [r[3].text for r in rows] == ["cannot tell", "cannot tell"]
    assert "SSS 0.81 > AULA 0.71 > CPS 0.26" in rows[0][2].text
    assert "not measured here: AUL" in rows[0][4].text
    assert "τ -0.28 to 0.45 over 24 pairs (12 models)" in rows[1][2].text
    assert "not measured here: BiasBios and NLI-bias" in rows[1][4].text
    assert (
        "; 1,800 STS-bias items; Holm over 24 tests: |τ| ≥ 0.67 needed, power 0.19 at τ 0.50"
        in (rows[1][4].text)
    )


def test_a_committed_example_renders_the_section_with_its_verdict() -> None:
    folder = EXAMPLES / "posthoc-debiasing"
    result = read_results(folder / "results.json")
    html = render_html(build_report(result, read_scores(folder, result)))
    page = parse(html)
    rows = page.table("literature-table")
    assert rows[0] == [
        "Study",
        "Paper's figure",
        "This audit",
        "Agrees?",
        "What limits the comparison",
    ]
    assert len(rows) == 2 and rows[1][3].startswith("not comparable")
    assert "INLP of minilm-mlm" in rows[1][2] and "Figure 1, §4.4" in rows[1][1]
    assert '<a href="#literature">Compared with the literature</a>' in html


# ------------------------------------------------------------------ reads results.json only

LITERATURE_MODULES = (
    "literature.py",
    "literature_agreement.py",
    "literature_figures.py",
    "literature_limits.py",
)


def test_the_literature_modules_import_only_the_reading_side() -> None:
    allowed = ("audit.report", "audit.results", "audit.ids", "audit.cards", "audit.gates")
    root = Path(__file__).resolve().parents[2] / "audit" / "report"
    for name in LITERATURE_MODULES:
        tree = ast.parse((root / name).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("audit"):
                assert node.module.startswith(allowed), f"{name} imports {node.module}"
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith("audit") for a in node.names), name
