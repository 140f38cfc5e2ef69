"""strip_unknown: what a newer minor version added is left out, at any depth, and named."""

from __future__ import annotations

import copy
from typing import Any

from audit.results import AuditResult, ExtrinsicRecord, UnreadPart, strip_unknown
from tests.report.synthetic import synthetic_result


def _data() -> dict[str, Any]:
    return synthetic_result().model_dump(mode="json")


def test_a_file_of_this_version_loses_nothing() -> None:
    data = _data()
    stripped, parts = strip_unknown(data, AuditResult)
    assert stripped == data and parts == ()


def test_unknown_sections_and_nested_fields_are_left_out_and_named() -> None:
    data = _data()
    original = copy.deepcopy(data)
    newer = copy.deepcopy(data)
    newer["fairness"] = [{"a": 1}]
    newer["audit"]["bootstrap"]["strata"] = "bias_type"
    for m in newer["measurements"][:3]:
        m["calibration"] = 0.5
    newer["measurements"][0]["scorer"]["revision"] = "abc"
    newer["plugins"][0]["homepage"] = "https://example.org"
    stripped, parts = strip_unknown(newer, AuditResult)
    assert stripped == original
    assert newer["fairness"] and data == original  # the input is left as it was
    assert parts == (
        UnreadPart("audit.bootstrap.strata"),
        UnreadPart("plugins[].homepage"),
        UnreadPart("measurements[].scorer.revision"),
        UnreadPart("measurements[].calibration", 3),
        UnreadPart("fairness"),
    )
    assert [p.describe() for p in parts[2:]] == [
        "field `measurements[].scorer.revision`",
        "field `measurements[].calibration` (in 3 records)",
        "section `fairness`",
    ]
    assert AuditResult.model_validate(stripped) == AuditResult.model_validate(original)


def _tpr_detail() -> dict[str, Any]:
    return {
        "aggregate": "mean_abs",
        "value": 0.1,
        "accuracy": 0.8,
        "n_bios": 10,
        "n_occupations": 2,
        "n_defined": 2,
        "alpha": 0.05,
        "n_bootstrap": 0,
        "seed": 1,
        "occupations": [],
    }


def test_a_union_of_records_is_walked_as_the_member_the_data_fits() -> None:
    detail = {**_tpr_detail(), "macro_f1": 0.7}
    stripped, parts = strip_unknown({"detail": detail, "facts": {"x": {"y": 1}}}, ExtrinsicRecord)
    assert stripped["detail"] == _tpr_detail()
    assert stripped["facts"] == {"x": {"y": 1}}  # free-form dicts are data, kept whole
    assert parts == (UnreadPart("detail.macro_f1"),)


def test_values_of_the_wrong_shape_are_left_for_validation_to_name() -> None:
    data = {"measurements": "not a list", "audit": 3}
    assert strip_unknown(data, AuditResult) == (data, ())


def test_a_plug_in_tasks_detail_fits_no_record_and_is_kept_whole() -> None:
    detail = {"value": 0.2, "ci_low": None, "ci_high": None, "note": "", "n": 6}
    stripped, parts = strip_unknown({"detail": detail}, ExtrinsicRecord)
    assert stripped["detail"] == detail and parts == ()
