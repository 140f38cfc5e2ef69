"""The stage asks the entry: the head kind it fine-tunes and the record type the metric
must emit (a task that emits another type is a bug, refused with both names)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest

from audit.extrinsic.biasbios import tpr_gap
from audit.extrinsic.catalog import EXTRINSIC_TASKS
from audit.extrinsic.head_kinds import HEAD_KINDS
from audit.extrinsic.settings import ExtrinsicSpec
from audit.extrinsic.stage import PlannedTask, _measured
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
        _measured(item, {}, Resampling(seed=0, n_bootstrap=0))
    right = PlannedTask(
        ExtrinsicSpec(task="biasbios"),
        EXTRINSIC_TASKS.entry("biasbios"),
        _WrongRecord(),
        None,
        data,
        ("m",),
    )
    assert isinstance(_measured(right, {}, Resampling(seed=0, n_bootstrap=0)).result, TprGapResult)
