"""The `classification` head kind (NLI, BiasBios): one logit per class, fine-tuned by
cross-entropy; dev accuracy, checked against always guessing the most frequent dev label;
its prediction is the class probabilities (`predict_proba`).

Torch and numpy are imported where they are used: a plan computes the head's data hash
without them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from audit.errors import AuditUserError
from audit.extrinsic.finetune.examples import (
    LabelledText,
    TextInput,
    classification_data_sha256,
)
from audit.extrinsic.finetune.settings import PREDICT_BATCH
from audit.extrinsic.finetune.task_head import TaskHead

if TYPE_CHECKING:
    import numpy as np
    import torch

    from audit.extrinsic.finetune.heads import TaskModel
    from audit.extrinsic.tasks.base import TaskData

#: The kind's name: what an extrinsic task entry's `head` and a fine-tuning's summary say.
KIND = "classification"


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
    return {"accuracy": evaluate_classifier(model, rows, batch_size=batch_size)}


def _classification_sha256(head: TaskHead, train: Sequence[Any], dev: Sequence[Any]) -> str:
    return classification_data_sha256(train, dev, head.classes)


def classification(labels: Sequence[str] | None = None) -> TaskHead:
    """A classifier's head: one logit per class. `labels` fixes the classes and their
    output order (default: the training labels, sorted, `TaskHead.for_rows`)."""
    return TaskHead(
        kind=KIND,
        example="example",
        inputs=_text,
        targets=_class_indices,
        loss=_cross_entropy,
        metric=_accuracy,
        data_sha256=_classification_sha256,
        labels=tuple(labels) if labels is not None else None,
        classes_from=class_labels,
    )


def predict_proba(
    model: TaskModel, inputs: Sequence[TextInput], *, batch_size: int = PREDICT_BATCH
) -> np.ndarray:
    """Class probabilities [n, C] (float64, rows sum to 1) of each input (a text or a
    pair), columns in `model.labels` order."""
    import numpy as np

    from audit.extrinsic.finetune.predict import predict_outputs

    if model.kind != KIND:
        raise ValueError(f"predict_proba needs a classification head (got {model.kind})")
    logits = predict_outputs(model, inputs, batch_size=batch_size)
    if len(logits) == 0:
        return logits
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    return exp / exp.sum(axis=1, keepdims=True)


def predict_labels(
    model: TaskModel, inputs: Sequence[TextInput], *, batch_size: int = PREDICT_BATCH
) -> list[str]:
    """The most probable class of each input (ties: the first in `model.labels`)."""
    probs = predict_proba(model, inputs, batch_size=batch_size)
    return [model.labels[int(i)] for i in probs.argmax(axis=1)]


def evaluate_classifier(
    model: TaskModel, rows: Sequence[LabelledText], *, batch_size: int = PREDICT_BATCH
) -> float | None:
    """Accuracy on `rows` (None without rows)."""
    if not rows:
        return None
    predicted = predict_labels(model, [r.inputs for r in rows], batch_size=batch_size)
    return sum(p == r.label for p, r in zip(predicted, rows, strict=True)) / len(rows)


class ClassificationKind:
    """The `classification` kind's rules (`head_kinds.HeadKindRules`)."""

    def head(self, data: TaskData) -> TaskHead:
        """One logit per class of `data.labels` (default: the training labels, sorted)."""
        return classification(data.labels)

    def stored_head(self, labels: Sequence[str]) -> TaskHead:
        return classification(labels)

    def dev_floor(self, data: TaskData) -> tuple[float, str]:
        labels: Sequence[object] = [getattr(row, "label", None) for row in data.dev]
        majority = max(labels.count(x) for x in set(labels)) / len(labels) if labels else 0.0
        return majority, "the share of the most frequent dev label (always guessing it)"

    def learned(self, value: float, floor: float) -> bool:
        return value > floor

    def predict(self, model: TaskModel, inputs: Sequence[TextInput], batch_size: int) -> np.ndarray:
        """The class probabilities of each input, float64 [n, C]."""
        return predict_proba(model, inputs, batch_size=batch_size)


RULES = ClassificationKind()
