"""`audit compare` (paired comparison of two runs, mismatches listed) and the writers."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from audit.comparison.runs import compare_results
from audit.errors import AuditUserError
from audit.report.compare import ComparisonReport, build_comparison, compare_runs
from audit.report.render import write_reports
from audit.results import COMPARISON_VERDICTS, AuditResult
from audit.studies import paired_test
from tests.report.html_parse import parse
from tests.report.synthetic import synthetic_result, synthetic_scores


def _crows_only(scores: pd.DataFrame) -> pd.DataFrame:
    keep = (scores["dataset"] == "crows_pairs") & (scores["model"] != "gpt2")
    return scores[keep].reset_index(drop=True)


def _report(
    baseline: AuditResult,
    candidate: AuditResult,
    baseline_scores: pd.DataFrame | None,
    candidate_scores: pd.DataFrame | None,
) -> ComparisonReport:
    """The comparison report of two runs, compared with the default paired test."""
    comparison = compare_results(
        baseline,
        candidate,
        baseline_scores=baseline_scores,
        candidate_scores=candidate_scores,
        paired_test=paired_test,
    )
    return build_comparison(comparison)


@pytest.fixture(scope="module")
def runs() -> tuple[pd.DataFrame, pd.DataFrame]:
    return _crows_only(synthetic_scores(seed=7)), _crows_only(synthetic_scores(seed=8))


def test_same_items_give_paired_verdicts(runs: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    base_scores, cand_scores = runs
    baseline, candidate = synthetic_result(base_scores), synthetic_result(cand_scores)
    report = _report(baseline, candidate, base_scores, cand_scores)
    assert report.model_pairs == [
        ("bert-base-uncased", "bert-base-uncased"),
        ("roberta-base", "roberta-base"),
    ]
    rows = [row for t in report.tables for row in t.rows]
    verdicts = {row[-1].text for row in rows}
    assert verdicts <= set(COMPARISON_VERDICTS) - {"undefined"}
    # the summary (also the line `audit compare` prints) counts the table's own words
    count = {v: sum(row[-1].text == v for row in rows) for v in COMPARISON_VERDICTS}
    summary = report.summary[0]
    assert f"on {len(rows)} measure(s); the candidate against the baseline: " in summary
    for verdict, n in count.items():
        if n:
            assert f"{n} {verdict}" in summary
    zero = [v for v in ("further from the ideal", "changed") if not count[v]]
    assert summary.endswith(f"; none {' or '.join(zero)}.") if zero else summary.endswith(".")
    assert {row[1].text for row in rows} >= {"Bias score", "KLS", "JSS"}
    # Candidate − Baseline (CI): the pair is named by the title, not a column
    assert all(row[6].low is not None and row[6].high is not None for row in rows)
    assert not any("items" in m for m in report.mismatches)


def test_mismatched_items_and_datasets_are_reported(
    runs: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    base_scores, cand_scores = runs
    dropped = cand_scores[~cand_scores["item_id"].isin(["cr0", "cr1", "cr2"])]
    baseline = synthetic_result(base_scores)
    candidate = synthetic_result(dropped.reset_index(drop=True))
    candidate = candidate.model_copy(
        update={
            "datasets": [
                d.model_copy(update={"sha256": "f" * 64}) if d.name == "crows_pairs" else d
                for d in candidate.datasets[:1]
            ]
        }
    )
    report = _report(baseline, candidate, base_scores, dropped)
    text = " | ".join(report.mismatches)
    assert "3 item(s) only in the baseline" in text
    assert "dataset 'crows_pairs': different files" in text
    assert "dataset 'stereoset' only in the baseline run" in text
    assert report.tables, "the common items are still compared"


def test_compare_runs_writes_html(tmp_path: Path, runs: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    for name, scores in zip(("a", "b"), runs, strict=True):
        run = tmp_path / name
        run.mkdir()
        scores.to_parquet(run / "scores.parquet", index=False)
        synthetic_result(scores).write(run / "results.json")
    written = compare_runs(
        tmp_path / "a" / "results.json",
        tmp_path / "b" / "results.json",
        tmp_path / "out",
        formats=["html"],
        paired_test=paired_test,
    )
    assert written == [tmp_path / "out" / "comparison.html"]
    page = parse(written[0].read_text())
    table = page.table("compare-1")
    assert table[0][-1] == "Candidate is" and len(table) > 3


def test_without_bootstrap_or_scores_the_values_are_shown_untested(
    runs: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    base_scores, cand_scores = runs
    baseline, candidate = synthetic_result(base_scores), synthetic_result(cand_scores)
    no_bootstrap = candidate.audit.model_copy(
        update={"bootstrap": candidate.audit.bootstrap.model_copy(update={"resamples": 0})}
    )
    candidate = candidate.model_copy(update={"audit": no_bootstrap})
    report = _report(baseline, candidate, base_scores, cand_scores)
    rows = [row for t in report.tables for row in t.rows]
    assert rows and {row[-1].text for row in rows} == {"undefined"}
    assert all("n_bootstrap >= 1 (got 0)" in row[-1].note for row in rows)
    unscored = _report(baseline, candidate, None, None)
    notes = {row[-1].note for t in unscored.tables for row in t.rows}
    assert notes == {"no scores.parquet: no paired test"}


def test_write_reports_reads_scores_next_to_results(tmp_path: Path) -> None:
    scores = synthetic_scores()
    scores = scores[scores["dataset"] == "crows_pairs"].reset_index(drop=True)
    result = synthetic_result(scores)
    (tmp_path / "with").mkdir()
    scores.to_parquet(tmp_path / "with" / "scores.parquet", index=False)
    with_scores = write_reports(result, tmp_path / "with", formats=["html"])
    without = write_reports(result, tmp_path / "without", formats=["html"])
    beside = write_reports(
        result, tmp_path / "elsewhere", formats=["html"], scores_dir=tmp_path / "with"
    )
    assert 'id="crows-pairs-distributions"' in beside[0].read_text()
    assert 'id="crows-pairs-distributions"' in with_scores[0].read_text()
    assert 'id="crows-pairs-distributions"' not in without[0].read_text()
    with pytest.raises(AuditUserError, match="unknown report format"):
        write_reports(result, tmp_path, formats=["docx"])
