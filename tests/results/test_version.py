"""results_version: MAJOR.MINOR, a bare integer read as MAJOR.0, compared as numbers."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from audit.results import RESULTS_VERSION, AuditResult, ResultsVersion
from tests.report.synthetic import synthetic_result


@pytest.mark.parametrize(
    ("value", "expected"),
    [("2.1", (2, 1)), (2, (2, 0)), (1, (1, 0)), ("10.0", (10, 0)), ("2.10", (2, 10))],
)
def test_parse(value: object, expected: tuple[int, int]) -> None:
    assert ResultsVersion.parse(value) == expected


@pytest.mark.parametrize("value", ["2", "2.1.0", "v2.1", "2.01", " 2.1", True, -1, 2.1, None])
def test_parse_refuses_what_is_not_a_version(value: object) -> None:
    with pytest.raises(ValueError, match=r"is not a version; expected 'MAJOR\.MINOR'"):
        ResultsVersion.parse(value)


def test_minor_versions_compare_as_numbers() -> None:
    assert ResultsVersion.parse("2.10") > ResultsVersion.parse("2.9") > ResultsVersion(2, 0)
    assert ResultsVersion(3, 0) > ResultsVersion(2, 99)
    assert str(ResultsVersion(2, 10)) == "2.10"


def test_this_code_writes_4_2() -> None:
    assert str(RESULTS_VERSION) == "4.2"
    result = synthetic_result()
    assert result.results_version == "4.2"
    assert '"results_version": "4.2"' in result.model_dump_json(indent=2)


def test_the_field_reads_a_bare_integer_as_major_0_and_refuses_nonsense() -> None:
    data = synthetic_result().model_dump(mode="json")
    assert AuditResult.model_validate({**data, "results_version": 2}).results_version == "2.0"
    with pytest.raises(ValidationError, match="is not a version"):
        AuditResult.model_validate({**data, "results_version": "two"})
