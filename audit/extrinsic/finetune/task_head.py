"""A task head as data: what a fine-tuning predicts and how it is judged. The one
fine-tuning (`tune.finetune`), the one store (`store.cached_finetune`) and the
predictions read a head's fields, never its kind. The heads of each kind are defined with
the kind (`audit.extrinsic.head_kinds`; the built-ins: `audit.extrinsic.kinds.regression`'s
`REGRESSION`, `audit.extrinsic.kinds.classification`'s `classification(labels)`).

A new head is one more value: its inputs, targets, loss, dev metric, data hash and number
of outputs (see docs/training.md, "A new head"). The layers on the encoder are the same
for every head (`heads.HeadLayers`, `n_outputs` wide).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from audit.extrinsic.finetune.examples import TextInput

if TYPE_CHECKING:
    import torch

    from audit.extrinsic.finetune.heads import TaskModel

#: A dev metric: the fine-tuned model, the dev rows, the prediction batch size -> the
#: `DevEvaluation` fields it fills (`pearson`, `spearman`, `accuracy`).
Metric = Callable[["TaskModel", Sequence[Any], int], dict[str, float | None]]


@dataclass(frozen=True)
class TaskHead:
    """What a fine-tuning predicts: `kind` (a registered head kind's name, recorded in the
    summary: `audit.extrinsic.head_kinds`), the examples' name in
    messages (`example`), each row's model input and the targets tensor (checked; `name`
    is "training" or "dev"), the loss of outputs [B, n] against targets [B], the dev
    metric, the hash of the training data, and the classes (`labels`, in output order;
    empty for one unbounded output, None until `for_rows` fixes them). `classes_from`
    checks given classes or finds those of the training rows (None: a head without
    classes)."""

    kind: str
    example: str
    inputs: Callable[[Any], TextInput]
    targets: Callable[[TaskHead, str, Sequence[Any]], torch.Tensor]
    loss: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
    metric: Metric
    data_sha256: Callable[[TaskHead, Sequence[Any], Sequence[Any]], str]
    labels: tuple[str, ...] | None = ()
    classes_from: Callable[[Sequence[Any], Sequence[str] | None], tuple[str, ...]] | None = None

    @property
    def n_outputs(self) -> int:
        return len(self.classes) if self.classes_from is not None else 1

    @property
    def classes(self) -> tuple[str, ...]:
        """The classes in output order (empty when there are none or not yet fixed)."""
        return self.labels or ()

    def for_rows(self, train_rows: Sequence[Any]) -> TaskHead:
        """The head with its classes fixed: the given labels checked, else the training
        rows' labels sorted."""
        if self.classes_from is None:
            return self
        return replace(self, labels=self.classes_from(train_rows, self.labels))
