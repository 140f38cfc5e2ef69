"""A task head as data: what a fine-tuning predicts and how it is judged. Regression
(STS-B: a similarity, MSE, Pearson/Spearman on dev) and classification (NLI, BiasBios:
one logit per class, cross-entropy, accuracy on dev) are two values of `TaskHead`; the
one fine-tuning (`tune.finetune`), the one store (`store.cached_finetune`) and the
predictions read a head's fields, never its kind.

A new head is one more value: its inputs, targets, loss, dev metric, data hash and number
of outputs (see docs/training.md, "A new head"). The layers on the encoder are the same
for every head (`heads.HeadLayers`, `n_outputs` wide).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from audit.errors import AuditUserError
from audit.extrinsic.finetune.examples import (
    LabelledText,
    ScoredPair,
    TextInput,
    classification_data_sha256,
    regression_data_sha256,
)

if TYPE_CHECKING:
    import torch

    from audit.extrinsic.finetune.heads import TaskModel

Kind = Literal["regression", "classification"]
#: A dev metric: the fine-tuned model, the dev rows, the prediction batch size -> the
#: `DevEvaluation` fields it fills (`pearson`, `spearman`, `accuracy`).
Metric = Callable[["TaskModel", Sequence[Any], int], dict[str, float | None]]


@dataclass(frozen=True)
class TaskHead:
    """What a fine-tuning predicts: `kind` (recorded in the summary), the examples' name in
    messages (`example`), each row's model input and the targets tensor (checked; `name`
    is "training" or "dev"), the loss of outputs [B, n] against targets [B], the dev
    metric, the hash of the training data, and the classes (`labels`, in output order;
    empty for one unbounded output, None until `for_rows` fixes them). `classes_from`
    checks given classes or finds those of the training rows (None: a head without
    classes)."""

    kind: Kind
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


# -- regression -------------------------------------------------------------------------


def _pair(row: ScoredPair) -> tuple[str, str]:
    return (row.sentence1, row.sentence2)


def _scores(head: TaskHead, name: str, rows: Sequence[ScoredPair]) -> torch.Tensor:
    import torch

    for i, row in enumerate(rows):
        if not math.isfinite(float(row.score)):
            raise AuditUserError(f"fine-tuning: {name} pair {i + 1} has a non-finite score")
    return torch.tensor([float(r.score) for r in rows], dtype=torch.float32)


def _mse(outputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    import torch

    return torch.nn.functional.mse_loss(outputs[:, 0], targets)


def _sts_metric(
    model: TaskModel, rows: Sequence[ScoredPair], batch_size: int
) -> dict[str, float | None]:
    from audit.extrinsic.finetune.predict import evaluate_sts

    pearson, spearman = evaluate_sts(model, rows, batch_size=batch_size)
    return {"pearson": pearson, "spearman": spearman}


def _regression_sha256(head: TaskHead, train: Sequence[Any], dev: Sequence[Any]) -> str:
    return regression_data_sha256(train, dev)


#: STS-B's head: one unbounded output, the predicted similarity.
REGRESSION = TaskHead(
    kind="regression",
    example="pair",
    inputs=_pair,
    targets=_scores,
    loss=_mse,
    metric=_sts_metric,
    data_sha256=_regression_sha256,
)


# -- classification -----------------------------------------------------------------------


def class_labels(rows: Sequence[LabelledText], labels: Sequence[str] | None) -> tuple[str, ...]:
    """The classes in output order: `labels` as given, else the training labels sorted. A
    user error with fewer than 2 classes or repeated labels."""
    chosen = tuple(labels) if labels is not None else tuple(sorted({r.label for r in rows}))
    if len(chosen) < 2:
        raise AuditUserError(
            f"fine-tuning (classification): {len(chosen)} class(es) {list(chosen)}; a "
            "classifier needs at least 2"
        )
    if len(set(chosen)) != len(chosen):
        raise AuditUserError(f"fine-tuning (classification): repeated labels in {list(chosen)}")
    return chosen


def _text(row: LabelledText) -> TextInput:
    return row.inputs


def _class_indices(head: TaskHead, name: str, rows: Sequence[LabelledText]) -> torch.Tensor:
    import torch

    position = {label: i for i, label in enumerate(head.classes)}
    unknown = sorted({r.label for r in rows if r.label not in position})
    if unknown:
        shown = ", ".join(repr(u) for u in unknown[:5])
        raise AuditUserError(
            f"fine-tuning (classification): {name} label(s) {shown} are not among the "
            f"classes {list(head.classes)}"
        )
    return torch.tensor([position[r.label] for r in rows], dtype=torch.long)


def _cross_entropy(outputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    import torch

    return torch.nn.functional.cross_entropy(outputs, targets)


def _accuracy(
    model: TaskModel, rows: Sequence[LabelledText], batch_size: int
) -> dict[str, float | None]:
    from audit.extrinsic.finetune.predict import evaluate_classifier

    return {"accuracy": evaluate_classifier(model, rows, batch_size=batch_size)}


def _classification_sha256(head: TaskHead, train: Sequence[Any], dev: Sequence[Any]) -> str:
    return classification_data_sha256(train, dev, head.classes)


def classification(labels: Sequence[str] | None = None) -> TaskHead:
    """A classifier's head: one logit per class. `labels` fixes the classes and their
    output order (default: the training labels, sorted, `TaskHead.for_rows`)."""
    return TaskHead(
        kind="classification",
        example="example",
        inputs=_text,
        targets=_class_indices,
        loss=_cross_entropy,
        metric=_accuracy,
        data_sha256=_classification_sha256,
        labels=tuple(labels) if labels is not None else None,
        classes_from=class_labels,
    )


def head_of(kind: str, labels: Sequence[str]) -> TaskHead:
    """The built-in head a stored fine-tuning's summary names (`kind`, `labels`)."""
    if kind == "regression":
        return REGRESSION
    if kind == "classification":
        return classification(labels)
    raise ValueError(f"no built-in task head {kind!r}; pass the task's own head")
