"""Older results.json files hold each extrinsic value twice (its record and a `finetune`
measurement): they render as a new run does, with the value shown once, in the Extrinsic
bias section; a `finetune` measurement without its record is kept."""

from __future__ import annotations

from pathlib import Path

from audit.finetune_copies import FINETUNE_SCORER, without_finetune_copies
from audit.report.build import build_report
from audit.results_io import read_results

# The intrinsic-vs-extrinsic example as committed before results_version 2.3 (8 models).
EXAMPLE = (
    Path(__file__).resolve().parents[1] / "tests/fixtures/results_v2/intrinsic-vs-extrinsic.json"
)


def test_the_copies_of_extrinsic_records_are_skipped() -> None:
    result = read_results(EXAMPLE)
    copies = [m for m in result.measurements if m.scorer.name == FINETUNE_SCORER]
    assert len(copies) == len(result.extrinsic) == 8  # the file has them
    cleaned = without_finetune_copies(result)
    assert not [m for m in cleaned.measurements if m.scorer.name == FINETUNE_SCORER]
    assert len(cleaned.measurements) == len(result.measurements) - 8
    assert cleaned.extrinsic == result.extrinsic and cleaned.correlations == result.correlations


def test_a_copy_without_its_record_is_kept() -> None:
    result = read_results(EXAMPLE)
    alone = result.model_copy(update={"extrinsic": result.extrinsic[1:]})
    kept = [m for m in without_finetune_copies(alone).measurements if m.scorer.name == "finetune"]
    assert [m.model for m in kept] == [result.extrinsic[0].model]


def test_an_older_file_renders_the_value_once() -> None:
    report = build_report(read_results(EXAMPLE))
    assert "sts_b" not in [d.name for d in report.datasets]
    (section,) = [s for s in report.variant_sections if s.id == "extrinsic"]
    assert len(section.tables[0].rows) == 8
