"""A classification head (NLI: entailment / neutral / contradiction; BiasBios: the
occupation), its fine-tuning (cross-entropy), its class probabilities and the dev check
(accuracy)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import torch

from audit.errors import AuditUserError
from audit.extrinsic.finetune.examples import (
    LabelledText,
    TextInput,
    classification_data_sha256,
)
from audit.extrinsic.finetune.heads import TaskModel, build_task_model
from audit.extrinsic.finetune.loop import (
    EncodedData,
    FineTuned,
    OnCheckpoint,
    Progress,
    finetune_identity,
    run_finetune,
)
from audit.extrinsic.finetune.predict import PREDICT_BATCH, predict_outputs
from audit.extrinsic.finetune.settings import FineTuneSettings
from audit.results import DevEvaluation

if TYPE_CHECKING:
    from audit.models.loaded import LoadedModel


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


def _indices(name: str, rows: Sequence[LabelledText], labels: tuple[str, ...]) -> list[int]:
    position = {label: i for i, label in enumerate(labels)}
    unknown = sorted({r.label for r in rows if r.label not in position})
    if unknown:
        shown = ", ".join(repr(u) for u in unknown[:5])
        raise AuditUserError(
            f"fine-tuning (classification): {name} label(s) {shown} are not among the "
            f"classes {list(labels)}"
        )
    return [position[r.label] for r in rows]


def predict_proba(
    model: TaskModel, inputs: Sequence[TextInput], *, batch_size: int = PREDICT_BATCH
) -> np.ndarray:
    """Class probabilities [n, C] (float64, rows sum to 1) of each input (a text or a
    pair), columns in `model.labels` order."""
    if model.kind != "classification":
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


def finetune_classifier(
    loaded: LoadedModel,
    train_rows: Sequence[LabelledText],
    dev_rows: Sequence[LabelledText],
    *,
    settings: FineTuneSettings,
    work_dir: Path,
    labels: Sequence[str] | None = None,
    device: torch.device | None = None,
    on_checkpoint: OnCheckpoint | None = None,
    progress: Progress | None = None,
    stop_after: int | None = None,
    predict_batch: int = PREDICT_BATCH,
) -> FineTuned:
    """Fine-tune a classification head and a copy of `loaded`'s encoder on `train_rows`
    (cross-entropy); `loaded` is not changed. `labels` fixes the classes and their output
    order (default: the training labels, sorted); a label outside them is a user error.
    Everything else as `finetune_regression` (dev accuracy in `evaluations`)."""
    if settings.seed is None:
        raise ValueError("settings.seed must be filled in (FineTuneSettings.with_seed)")
    if not train_rows:
        raise AuditUserError("fine-tuning (classification): no training example")
    classes = class_labels(train_rows, labels)
    targets = _indices("training", train_rows, classes)
    _indices("dev", dev_rows, classes)
    device = device if device is not None else loaded.device
    resolved = settings.resolved(loaded.model_type, settings.seed)
    assert resolved.pooling is not None and resolved.seed is not None
    model = build_task_model(
        loaded,
        kind="classification",
        n_outputs=len(classes),
        pooling=resolved.pooling,
        max_length=resolved.max_length,
        head_dropout=resolved.head_dropout,
        seed=resolved.seed,
        device=device,
        labels=classes,
    )
    data = EncodedData(
        inputs=model.inputs.encode([r.inputs for r in train_rows]),
        targets=torch.tensor(targets, dtype=torch.long),
    )
    identity = finetune_identity(
        {
            "kind": "classification",
            "model": type(loaded.model).__name__,
            "fingerprint": loaded.fingerprint,
            "parameters": sum(p.numel() for p in model.parameters()),
            "data": classification_data_sha256(train_rows, dev_rows, classes),
        },
        resolved,
    )

    def evaluate(m: TaskModel, step: int) -> DevEvaluation:
        accuracy = evaluate_classifier(m, dev_rows, batch_size=predict_batch)
        return DevEvaluation(step=step, n=len(dev_rows), accuracy=accuracy)

    summary = run_finetune(
        model,
        data,
        loss_fn=lambda out, target: torch.nn.functional.cross_entropy(out, target),
        evaluate=evaluate if dev_rows else None,
        settings=resolved,
        identity=identity,
        work_dir=work_dir,
        device=device,
        on_checkpoint=on_checkpoint,
        progress=progress,
        stop_after=stop_after,
    )
    return FineTuned(model=model, summary=summary)
