"""The correlations in the report: each series with its direction, raw and corrected
p-values in every table of tests, the models left out because their fine-tuning failed the
dev check named, rows mixing model families labelled, and page 1 naming a strongest pair
only when some corrected test can reach significance with the models there are.

The committed intrinsic-vs-extrinsic example (8 models; the 4 masked ones failed the STS-B
dev check) has its correlations recomputed as this version computes them."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.ids import PluginId
from audit.report.build import build_report
from audit.report.model import ReportModel as Report
from audit.report.model import Table
from audit.results import AuditResult, CorrelationSettings, MeasureSeries
from audit.results_io import read_results
from audit.stats.correlation import correlate_measures
from audit.studies import StudySettings, correlations

# The intrinsic-vs-extrinsic example as committed before results_version 2.3 (8 models).
EXAMPLE = (
    Path(__file__).resolve().parents[2] / "tests/fixtures/results_v2/intrinsic-vs-extrinsic.json"
)
FAILED = ["minilm-mlm", "minilm-cda", "minilm-dropout", "minilm-at"]


def _example() -> AuditResult:
    return read_results(EXAMPLE)


def _recomputed(result: AuditResult, *, keep: bool = False) -> AuditResult:
    settings = StudySettings(
        model_order=[m.id for m in result.models],
        seed=result.audit.seed,
        alpha=result.alpha,
        bootstrap=result.audit.bootstrap.resamples,
        keep_failed_dev_check=keep,
        model_types={m.id: m.model_type for m in result.models},
    )
    intrinsic = [m for m in result.measurements if m.scorer.name != "finetune"]
    records = correlations(settings, intrinsic, result.extrinsic)
    audit = result.audit.model_copy(
        update={
            "correlations": CorrelationSettings(
                correction="holm", failed_dev_check="keep" if keep else "exclude"
            )
        }
    )
    return result.model_copy(update={"correlations": records, "audit": audit})


@pytest.fixture(scope="module")
def recomputed() -> Report:
    return build_report(_recomputed(_example()), None)


def _page_one(report: Report) -> str:
    (block,) = [b for b in report.summary.variants if b.heading == "Intrinsic vs extrinsic."]
    return block.text


def _table(report: Report, table_id: str) -> Table:
    tables = [t for s in report.variant_sections for t in s.tables]
    tables += [t for s in report.studies for t in s.tables]
    (table,) = [t for t in tables if t.id == table_id]
    return table


def test_page_one_says_four_models_cannot_conclude_anything(recomputed: Report) -> None:
    text = _page_one(recomputed)
    # 4 causal models: the exact Kendall test reaches 2/4! = 0.083 at best, above 0.05
    assert "the study has too few models to conclude anything" in text
    assert "smallest corrected Kendall p-value attainable is" in text
    assert "strongest" not in text
    assert (
        "Left out because their fine-tuning did not learn the task: "
        + ", ".join(FAILED[:-1])
        + f" and {FAILED[-1]}."
        in text
    )


def test_intrinsic_extrinsic_table_states_direction_correction_and_exclusions(
    recomputed: Report,
) -> None:
    table = _table(recomputed, "intrinsic-extrinsic")
    # one row per intrinsic measure x scorer the passing (causal) models have: ll only
    rows = [row[0].text for row in table.rows]
    assert rows and all(", scored by" in r and "(ll)" in r for r in rows), rows
    assert any(row[0].sub == "distance to ideal 50; lower is less biased" for row in table.rows)
    assert table.column_subs == ["", "distance to ideal 0; lower is less biased"]
    n = len(table.rows)
    assert f"Holm over the {n} intrinsic x extrinsic tests" in table.caption
    assert "Table 2" in table.caption and "COLING 2022" in table.caption
    (left_out,) = [note for note in table.notes if note.startswith("Left out")]
    for model in FAILED:
        assert f"{model} (sts_bias[max_templates=10] on sts_b: dev pearson " in left_out
    cell = table.rows[0][1]
    assert "(p " in cell.sub and "; corr. " in cell.sub and cell.emphasis == "warn"


def test_correlation_table_shows_raw_and_corrected_p(recomputed: Report) -> None:
    table = _table(recomputed, "correlation-table")
    assert table.columns.count("p") == 3 and table.columns.count("p (corr.)") == 3
    assert "Holm over the" in table.caption and "intrinsic tests" in table.caption
    assert any(note.startswith("Left out of the correlations") for note in table.notes)


def test_dev_block_says_the_failed_models_are_left_out(recomputed: Report) -> None:
    (section,) = [s for s in recomputed.variant_sections if s.id == "extrinsic"]
    (block,) = section.blocks
    assert "(left out of the correlations):" in block.text
    kept = build_report(_recomputed(_example(), keep=True), None)
    (section,) = [s for s in kept.variant_sections if s.id == "extrinsic"]
    assert "kept in the correlations, as the spec asks" in section.blocks[0].text
    table = _table(kept, "intrinsic-extrinsic")
    assert any("Kept although their fine-tuning failed the dev check" in n for n in table.notes)


def test_an_old_file_says_its_correlations_are_raw_and_uncorrected() -> None:
    report = build_report(_example(), None)
    table = _table(report, "intrinsic-extrinsic")
    assert "not corrected for multiple comparisons (results written before 3.0)" in (table.caption)
    assert table.rows[0][0].sub.startswith("raw values, not distances to the ideal")
    text = _page_one(report)
    assert "Kendall τ from -0.43 to 0.64" in text and "strongest" not in text
    assert "computed before results_version 3.0" in text and "no conclusion is drawn" in text


def _series(
    measure: PluginId, scorer: PluginId | None, dataset: str, ideal: float
) -> MeasureSeries:
    return MeasureSeries(
        measure=measure,
        dataset=dataset,
        scorer=scorer,
        label=measure.label,
        scale="distance",
        ideal_value=ideal,
    )


def test_page_one_names_the_strongest_pair_with_its_corrected_p() -> None:
    """Six models and two intrinsic series against STS-bias: the perfectly ranked pair has
    Kendall p 2/6! = 0.0028, corrected by Holm over the 2 tests 0.0056."""
    result = _example()
    models = [f"m{i}" for i in range(6)]
    sts = result.extrinsic[0].measure
    bias = _series(PluginId.of("bias_score"), PluginId.of("ll"), "crows_pairs", 50.0)
    kls = _series(PluginId.of("kls"), PluginId.of("ll"), "crows_pairs", 50.0)
    ext = _series(sts, None, "sts_b", 0.0)
    values = {
        bias: {m: float(i) for i, m in enumerate(models)},
        kls: {m: float(v) for m, v in zip(models, [3, 1, 4, 0, 5, 2], strict=True)},
        ext: {m: float(i) / 10 for i, m in enumerate(models)},
    }
    records = correlate_measures(
        values, seed=0, family_of=lambda x, y: "intrinsic x extrinsic" if ext in (x, y) else "i"
    )
    records = [r.model_copy(update={"model_types": ["masked", "causal"]}) for r in records]
    report = build_report(result.model_copy(update={"correlations": records}), None)
    text = _page_one(report)
    assert "the strongest was Bias score on CrowS-Pairs, scored by" in text
    assert "(τ 1.00, p 0.006 corrected by Holm over 2 tests)" in text
    assert "1 of 2 pairs had a corrected p <= 0.05" in text
    assert "2 pairs mix model families (masked and causal)" in text
    table = _table(report, "intrinsic-extrinsic")
    assert all("mixes model families (masked, causal)" in row[0].sub for row in table.rows)


def test_a_table_no_test_could_make_significant_keeps_no_row_in_the_body(
    recomputed: Report,
) -> None:
    """With 4 models no Kendall test can reach significance: the body keeps the caption
    (which says so) and a line to the whole table in the appendix, no row."""
    from audit.report.layout import shorten

    for table_id in ("intrinsic-extrinsic", "correlation-table"):
        table = _table(recomputed, table_id)
        assert table.body_limit == 0, table_id
        body = shorten(table, "B.2")
        assert body.rows == [] and body.more is not None
        assert body.more.text == (
            f"None of its {len(table.rows)} rows is shown here; the whole table is in Appendix B.2."
        )
