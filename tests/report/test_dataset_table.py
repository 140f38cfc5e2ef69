"""The cover's Datasets table: how a `limit` or `sample` chose the rows kept, and the
rows each reason left out, in words (issue 19: "limit: 1358" read like the limit)."""

from __future__ import annotations

from audit.report.build import build_cover, build_report
from audit.report.dataset_table import datasets_table, left_out_reasons, selection
from audit.report.render import render_html
from audit.results import AuditResult, DatasetRecord
from tests.report.synthetic import small_result


def _record(**fields: object) -> DatasetRecord:
    base: dict[str, object] = dict(
        name="crows_pairs", shape="pairs", source="c.csv", sha256="0" * 64, rows_read=1508
    )
    return DatasetRecord.model_validate({**base, **fields})


def _result(*records: DatasetRecord, seed: int = 0) -> AuditResult:
    result = small_result([])
    audit = result.audit.model_copy(update={"seed": seed})
    return result.model_copy(update={"datasets": list(records), "audit": audit})


def test_limit_says_first_n_of_how_many() -> None:
    record = _record(rows_kept=150, filtered={"limit": 1358})
    assert selection(record, seed=0) == "first 150 of 1,508 rows (limit)"
    assert left_out_reasons(record) == "past the limit: 1,358"


def test_sample_says_random_sample_and_its_seed() -> None:
    record = _record(rows_kept=500, filtered={"sample": 1008})
    assert selection(record, seed=3) == "500 of 1,508 rows, random sample, seed 3"
    assert left_out_reasons(record) == "not in the sample: 1,008"


def test_after_other_filters_the_count_is_of_the_remaining_rows() -> None:
    record = _record(rows_kept=100, filtered={"bias_types": 1159, "limit": 249})
    assert selection(record, seed=0) == "first 100 of 349 remaining rows (limit)"
    assert left_out_reasons(record) == "bias_types: 1,159; past the limit: 249"
    skipped = _record(rows_kept=40, skipped={"part != intrasentence": 8}, filtered={"sample": 1460})
    assert selection(skipped, seed=0) == "40 of 1,500 remaining rows, random sample, seed 0"


def test_without_limit_or_sample_nothing_is_said() -> None:
    record = _record(rows_kept=1502, skipped={"no majority gender": 6})
    assert selection(record, seed=0) == ""
    assert left_out_reasons(record) == "no majority gender: 6"


def test_the_table_shows_them_as_notes_and_the_html_prints_them() -> None:
    result = _result(
        _record(rows_kept=500, filtered={"sample": 1008}),
        _record(name="toxigen", shape="labelled", rows_read=6514, rows_kept=6514),
        seed=5,
    )
    table = datasets_table(result)
    assert table.columns == ["Dataset", "Shape", "Rows read", "Kept", "Left out", "sha256"]
    kept = [row[3] for row in table.rows]
    assert [c.value for c in kept] == [500.0, 6514.0]
    assert kept[0].note == "500 of 1,508 rows, random sample, seed 5" and kept[1].note == ""
    assert [row[4].value for row in table.rows] == [1008.0, 0.0]
    assert any("500 of 1,508 rows, random sample, seed 5" in n for n in table.notes)
    assert any("not in the sample: 1,008" in n for n in table.notes)
    assert build_cover(result).datasets == table
    assert "500 of 1,508 rows, random sample, seed 5" in render_html(build_report(result))
