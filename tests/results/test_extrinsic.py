"""An extrinsic record keeps its task's own result record: a built-in's as its type, a
plug-in task's as its JSON fields (so results.json reads back without the plug-in)."""

from __future__ import annotations

from typing import Any

from audit.ids import PluginId
from audit.results import ChosenCheckpoint, ExtrinsicRecord, TprGapResult
from audit.results.record import Record
from tests.extrinsic.test_head_kinds import summary
from tests.results.test_unknown import _tpr_detail


class _GapResult(Record):
    value: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    note: str = ""
    n: int


def _record(detail: Any) -> ExtrinsicRecord:
    return ExtrinsicRecord(
        task="t",
        measure=PluginId.of("t", {}),
        model="m",
        dataset="d",
        value=0.25,
        n=6,
        finetune=summary("classification"),
        cached=False,
        key="k",
        detail=detail,
    )


def test_a_plug_in_tasks_result_is_kept_as_its_fields() -> None:
    record = _record(_GapResult(value=0.25, n=6))
    fields = {"value": 0.25, "ci_low": None, "ci_high": None, "note": "", "n": 6}
    assert record.detail == fields
    again = ExtrinsicRecord.model_validate_json(record.model_dump_json())
    assert again == record and again.detail == fields


def test_a_built_in_result_reads_back_as_its_type() -> None:
    tpr = TprGapResult.model_validate(_tpr_detail())
    again = ExtrinsicRecord.model_validate_json(_record(tpr).model_dump_json())
    assert isinstance(again.detail, TprGapResult) and again.detail == tpr


def test_the_chosen_checkpoint_reads_back_and_is_none_in_older_records() -> None:
    chosen = ChosenCheckpoint(step=4, rule="best_dev", dev=0.8, scored=2, reason="best")
    record = _record(_GapResult(value=0.25, n=6)).model_copy(update={"chosen_checkpoint": chosen})
    again = ExtrinsicRecord.model_validate_json(record.model_dump_json())
    assert again.chosen_checkpoint == chosen
    older = record.model_dump(mode="json")
    del older["chosen_checkpoint"]  # results_version 2.2 and before
    assert ExtrinsicRecord.model_validate(older).chosen_checkpoint is None
