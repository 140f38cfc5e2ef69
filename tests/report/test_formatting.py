"""Number formatting shared by templates and sentences."""

from __future__ import annotations

import math
from datetime import UTC, datetime

from audit.report.formatting import (
    fmt_band,
    fmt_ci,
    fmt_date,
    fmt_estimate,
    fmt_num,
    fmt_p,
    fmt_pct,
    fmt_precision,
    fmt_seconds,
    group_name,
    lower_first,
    plain,
    plural,
)


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


def test_words_for_people() -> None:
    assert plural(1, "model") == "1 model" and plural(1508, "pair") == "1,508 pairs"
    assert fmt_band(45, 55) == "45\u201355"
    assert fmt_band(0.5, None) == "at least 0.5" and fmt_band(None, 10) == "at most 10"
    assert fmt_estimate(55.57, 52.9, 58.2, 1) == "55.6 [52.9, 58.2]"
    assert fmt_estimate(75.0, None, None, 1, 2) == "75.0, no interval (2 items)"
    assert fmt_estimate(None, None, None, 1) == "no value"
    assert fmt_precision("cpu/float32", "cpu") == "float32 on CPU"
    assert fmt_precision("bfloat16", "cuda:0") == "bfloat16 on GPU (CUDA) 0"
    assert (
        plain("(`compat: reference` drops groups)")
        == "(\u2018compat: reference\u2019 drops groups)"
    )
    assert plain("one ` alone") == "one ` alone"
    assert lower_first("Log-likelihood") == "log-likelihood"
    assert lower_first("CrowS-Pairs score") == "CrowS-Pairs score" and lower_first("KLS") == "KLS"


def test_group_labels_read_as_words() -> None:
    assert group_name("mental dis") == "mental disability"
    assert group_name("physical_dis") == "physical disability"
    assert group_name("lgbtq") == "LGBTQ+"
    assert group_name("mexican") == "Mexican"
    assert group_name("native-american") == "Native American"
    assert group_name("sexual-orientation") == "sexual orientation"
    assert group_name("race-color") == "race/color"
    assert group_name("all") == "whole dataset"
    assert group_name("women") == "women"
