"""The task contract's context: the datasets its entry names, each read once through the
task-dataset registry, however many roles it plays."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import audit.data.catalog as data_catalog
from audit.data.task_entry import TaskSplits
from audit.extrinsic.tasks.base import Resampling, TaskContext


def test_each_dataset_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, Path, Any, int]] = []

    def fake(name: str, data_dir: Path, options: Any, seed: int) -> TaskSplits:
        calls.append((name, data_dir, options, seed))
        return TaskSplits(name, {"train": [name]})

    monkeypatch.setattr(data_catalog, "read_task_dataset", fake)
    same = TaskContext(data_dir=tmp_path, seed=5, training="sts_b", evaluation="sts_b")
    assert same.training_data("opts") is same.evaluation_data("opts")
    assert calls == [("sts_b", tmp_path, "opts", 5)]
    two = TaskContext(data_dir=tmp_path, seed=5, training="nli", evaluation="nli_bias")
    assert two.training_data(None).dataset == "nli"
    assert two.evaluation_data(None).dataset == "nli_bias"
    assert [c[0] for c in calls] == ["sts_b", "nli", "nli_bias"]


def test_resampling_defaults_to_a_95_percent_interval() -> None:
    assert Resampling(seed=1, n_bootstrap=0).alpha == 0.05


def test_resampling_keywords_are_a_bootstraps_arguments() -> None:
    resampling = Resampling(seed=7, n_bootstrap=200, alpha=0.1)
    assert resampling.keywords() == {"seed": 7, "n_bootstrap": 200, "alpha": 0.1}
