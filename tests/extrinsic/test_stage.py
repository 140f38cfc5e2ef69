"""The stage asks the entry: the head kind it fine-tunes and the record type the metric
must emit (a task that emits another type is a bug, refused with both names). The head is
the task's own when it hands one over, else its kind's head, keyed as the store keys it
(`planned_key` with the kind's head)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from audit.errors import AuditUserError
from audit.extrinsic.biasbios import tpr_gap
from audit.extrinsic.catalog import EXTRINSIC_TASKS
from audit.extrinsic.finetune.examples import LabelledText
from audit.extrinsic.finetune.store import planned_key
from audit.extrinsic.head_kinds import HEAD_KINDS
from audit.extrinsic.kinds.classification import classification
from audit.extrinsic.kinds.regression import REGRESSION
from audit.extrinsic.options import BiasBiosOptions, StsBiasOptions
from audit.extrinsic.planned import PlannedTask, plan_extrinsic
from audit.extrinsic.seed_run import measured
from audit.extrinsic.settings import ExtrinsicSpec
from audit.extrinsic.sts_data import StsRow
from audit.extrinsic.tasks.base import Resampling, TaskData, TaskValue
from audit.results import TprGapResult


class _WrongRecord:
    def prepare(self, options: Any, context: Any) -> TaskData:
        raise NotImplementedError

    def predict(self, model: Any, data: TaskData) -> dict[str, np.ndarray]:
        raise NotImplementedError

    def measure(
        self, predictions: Mapping[str, np.ndarray], data: TaskData, resampling: Resampling
    ) -> TaskValue:
        result = tpr_gap(["a", "a"], ["a", "b"], ["female", "male"], seed=0, n_bootstrap=0)
        return TaskValue.of(result, 2)


def test_the_metric_must_emit_the_entrys_record_type() -> None:
    entry = EXTRINSIC_TASKS.entry("sts_bias")
    data = TaskData(dataset="sts_b", train=[], dev=[], evaluation=None)
    item = PlannedTask(ExtrinsicSpec(task="sts_bias"), entry, _WrongRecord(), None, data, ("m",))
    assert item.head is HEAD_KINDS["regression"]
    with pytest.raises(
        TypeError, match="gave a TprGapResult; its entry says it emits StsBiasResult"
    ):
        measured(item, {}, Resampling(seed=0, n_bootstrap=0))
    right = PlannedTask(
        ExtrinsicSpec(task="biasbios"),
        EXTRINSIC_TASKS.entry("biasbios"),
        _WrongRecord(),
        None,
        data,
        ("m",),
    )
    assert isinstance(measured(right, {}, Resampling(seed=0, n_bootstrap=0)).result, TprGapResult)


class _OwnHead(_WrongRecord):
    """A task whose `prepare` hands over its own head (a regression head here)."""

    def prepare(self, options: Any, context: Any) -> TaskData:
        return TaskData(dataset="x", train=[], dev=[], evaluation=None, head=REGRESSION)


def _key(item: PlannedTask) -> str:
    return item.cache_key("f" * 64, "masked", 3)


def _common(item: PlannedTask) -> dict[str, Any]:
    return {
        "model_fingerprint": "f" * 64,
        "model_type": "masked",
        "task": item.name,
        "task_options": item.task_options(),
        "settings": item.spec.finetune.with_seed(3),
    }


def _biasbios_task(data: TaskData) -> PlannedTask:
    """BiasBios planned for one model `m` on `data`."""
    entry = EXTRINSIC_TASKS.entry("biasbios")
    return PlannedTask(
        ExtrinsicSpec(task="biasbios"), entry, _WrongRecord(), BiasBiosOptions(), data, ("m",)
    )


def test_the_built_in_tasks_keep_the_stores_keys() -> None:
    rows = [StsRow(float(i), f"a{i}", "b", "g", "f", "2012", "1", i) for i in range(3)]
    data = TaskData(dataset="sts_b", train=rows, dev=rows[:1], evaluation=None)
    sts = PlannedTask(
        ExtrinsicSpec(task="sts_bias"),
        EXTRINSIC_TASKS.entry("sts_bias"),
        _WrongRecord(),
        StsBiasOptions(),
        data,
        ("m",),
    )
    assert _key(sts) == planned_key(REGRESSION, train_rows=rows, dev_rows=rows[:1], **_common(sts))
    texts = [LabelledText(text=f"t{i}", label=label) for i, label in enumerate("abb")]
    data = TaskData(dataset="biasbios", train=texts, dev=texts, evaluation=None, labels=("b", "a"))
    bios = _biasbios_task(data)
    expected = planned_key(
        classification(("b", "a")), train_rows=texts, dev_rows=texts, **_common(bios)
    )
    assert _key(bios) == expected
    assert bios.task_head.labels == ("b", "a") and bios.task_head.kind == "classification"


def test_a_tasks_own_head_is_keyed_and_planned_with_it() -> None:
    texts = [LabelledText(text=f"t{i}", label=label) for i, label in enumerate("abb")]
    own = classification(("b", "a", "c"))
    data = TaskData("biasbios", texts, texts, None, labels=("a", "b"), head=own)
    item = _biasbios_task(data)
    assert item.task_head is own
    assert _key(item) == planned_key(own, train_rows=texts, dev_rows=texts, **_common(item))
    assert _key(item) != planned_key(
        classification(("a", "b")), train_rows=texts, dev_rows=texts, **_common(item)
    )


def test_a_tasks_own_head_of_another_kind_stops_the_plan(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(EXTRINSIC_TASKS, "load", lambda name: _OwnHead())
    with pytest.raises(
        AuditUserError,
        match=r"extrinsic\[0\] \(biasbios\): the task's own head is a regression head; its "
        "entry says classification",
    ):
        plan_extrinsic(
            [ExtrinsicSpec(task="biasbios")],
            model_types={"m": "masked"},
            variants_of={},
            data_dir=tmp_path,
            seed=0,
        )
