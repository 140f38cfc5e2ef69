"""A task head is data: a new head (here: regression with an L1 loss) is one more
`TaskHead` value, and the one fine-tuning, the store, its planned key and the reload
take it as it is."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import torch

from audit.code_identity import CodeIdentity
from audit.errors import AuditUserError
from audit.extrinsic.finetune.examples import LabelledText
from audit.extrinsic.finetune.store import cached_finetune, load_finetuned, planned_key
from audit.extrinsic.kinds.classification import class_labels, classification
from audit.extrinsic.kinds.regression import REGRESSION
from tests.extrinsic.test_finetune import learnable_rows, load_tiny, settings, tiny_dirs

__all__ = ["tiny_dirs"]  # the fixture, shared with test_finetune.py


def _l1(outputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.l1_loss(outputs[:, 0], targets)


L1_REGRESSION = replace(REGRESSION, loss=_l1)


def test_head_values() -> None:
    assert REGRESSION.n_outputs == 1 and REGRESSION.classes == ()
    rows = [LabelledText("a", "y"), LabelledText("b", "x"), LabelledText("c", "y")]
    found = classification().for_rows(rows)
    assert found.labels == ("x", "y") and found.n_outputs == 2
    given = classification(["y", "x"]).for_rows(rows)
    assert given.labels == ("y", "x")
    assert given.targets(given, "training", rows).tolist() == [0, 1, 0]
    with pytest.raises(AuditUserError, match="at least 2"):
        class_labels(rows[:1], None)


def test_a_new_head_fine_tunes_and_is_stored(tiny_dirs: dict[str, Path], tmp_path: Path) -> None:
    loaded = load_tiny(tiny_dirs, "bert")
    rows = learnable_rows()
    tuned = settings(steps=4)
    # "toy" is no registered task: its code identity is given (a built-in's, version 1)
    toy = CodeIdentity(kind="extrinsic_task", name="toy")
    common = {"task": "toy", "task_options": {}, "settings": tuned, "code": toy}
    stored = cached_finetune(loaded, L1_REGRESSION, rows, rows[:6], cache_dir=tmp_path, **common)
    assert stored.key == planned_key(
        L1_REGRESSION,
        model_fingerprint=loaded.fingerprint,
        model_type="masked",
        train_rows=rows,
        dev_rows=rows[:6],
        **common,
    )
    assert stored.summary.kind == "regression" and stored.summary.steps == 4
    assert stored.summary.final is not None and stored.summary.final.pearson is not None
    plain = cached_finetune(loaded, REGRESSION, rows, rows[:6], cache_dir=tmp_path, **common)
    assert plain.key == stored.key  # the task name keys the head: one task, one head
    assert plain.cached
    again = load_finetuned(loaded, stored, head=L1_REGRESSION)
    assert again.task_head.loss is _l1 and again.kind == "regression"
