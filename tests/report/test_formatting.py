"""Number formatting shared by templates and sentences."""

from __future__ import annotations

import math
from datetime import UTC, datetime

from audit.report.formatting import fmt_ci, fmt_date, fmt_num, fmt_p, fmt_pct, fmt_seconds


def test_numbers_and_missing_values() -> None:
    assert fmt_num(59.5491, 1) == "59.5"
    assert fmt_num(1234567, 0) == "1,234,567"
    assert fmt_num(-0.0001, 2) == "0.00"
    assert fmt_num(None) == fmt_num(math.nan) == "\u2014"
    assert fmt_ci(57.35, 61.9, 1) == "[57.4, 61.9]"
    assert fmt_ci(None, 3.0) == ""


def test_p_values_percentages_dates_and_durations() -> None:
    assert fmt_p(1e-13) == "< 0.001"
    assert fmt_p(0.04567) == "0.046"
    assert fmt_p(None) == "\u2014"
    assert fmt_pct(0.8) == "80%"
    assert fmt_date(datetime(2024, 9, 14, 9, 30, tzinfo=UTC)) == "2024-09-14 09:30 UTC"
    assert fmt_seconds(4.25) == "4.2 s"
    assert fmt_seconds(185) == "3 min 5 s"
