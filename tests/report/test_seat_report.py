"""The SEAT table and chart of a report, from plain per-test rows."""

from __future__ import annotations

import pytest

from audit.report.seat import SeatRow, bias_type_summary, seat_chart, seat_table
from audit.report.svg import chart_svg


def _row(model: str, test: str, d: float | None, p: float, bias_type: str | None) -> SeatRow:
    return SeatRow(
        model=model,
        test=test,
        bias_type=bias_type,
        effect_size=d,
        p_value=p,
        exact=test.startswith("weat"),
        n_partitions=12_870 if test.startswith("weat") else 100_000,
        n_x=8,
        n_y=8,
        n_a=8,
        n_b=8,
    )


ROWS = [
    _row("base", "sent-weat6", 0.9, 0.001, "gender"),
    _row("base", "sent-weat7", -0.3, 0.8, "gender"),
    _row("base", "weat6", None, 1.0, None),
    _row("debiased", "sent-weat6", 0.2, 0.2, "gender"),
]


def test_table_has_a_row_per_model_and_test() -> None:
    table = seat_table(ROWS, alpha=0.05)
    assert [row[1].text for row in table.rows] == [
        "sent-weat6",
        "sent-weat7",
        "weat6",
        "sent-weat6",
    ]
    first, _, undefined, _ = table.rows
    assert first[4].value == 0.9 and first[5].emphasis == "warn"
    assert first[6].text == "100,000 seeded partitions"
    assert undefined[4].text == "undefined" and undefined[6].text.startswith("exact (12,870")
    assert "not corrected" in table.caption


def test_bias_type_summary_is_the_mean_absolute_effect() -> None:
    summary = bias_type_summary(ROWS)
    assert summary == {("base", "gender"): pytest.approx(0.6), ("debiased", "gender"): 0.2}


def test_chart_draws_every_test_with_an_effect_size() -> None:
    chart = seat_chart(ROWS, alpha=0.05)
    assert chart is not None
    assert "2 tests" in chart.caption
    svg = chart_svg(chart.spec)
    assert "sent-weat6" in svg and "sent-weat7" in svg and ">weat6<" not in svg


def test_no_chart_without_an_effect_size() -> None:
    assert seat_chart([_row("base", "weat6", None, 1.0, None)], alpha=0.05) is None
