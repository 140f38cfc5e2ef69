"""A task model's outputs on many inputs (eval mode, no gradient, float32, longest inputs
first for little padding, returned in the inputs' order), and what the built-in heads
make of them: similarities, class probabilities and labels, the dev checks."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np
import torch

from audit.extrinsic.finetune.examples import LabelledText, ScoredPair, TextInput
from audit.extrinsic.finetune.heads import TaskModel

#: Inputs per forward pass when predicting.
PREDICT_BATCH = 64


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(float(x)) else None


def correlations(predicted: np.ndarray, gold: Sequence[float]) -> tuple[float | None, float | None]:
    """(Pearson r, Spearman rho) of predicted and gold scores; None where undefined (fewer
    than 2 pairs, or constant predictions)."""
    from scipy import stats

    x = np.asarray(predicted, dtype=np.float64)
    y = np.asarray(gold, dtype=np.float64)
    if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None, None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pearson = stats.pearsonr(x, y).statistic
        spearman = stats.spearmanr(x, y).statistic
    return _finite(pearson), _finite(spearman)


def predict_outputs(
    model: TaskModel, inputs: Sequence[TextInput], *, batch_size: int = PREDICT_BATCH
) -> np.ndarray:
    """The head's outputs [n, n_outputs] (float64) for each input (a text or a pair). The
    model's training/eval mode is put back afterwards."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1 (got {batch_size})")
    n_out = model.head.out.out_features
    if not inputs:
        return np.zeros((0, n_out), dtype=np.float64)
    encoded = model.inputs.encode(inputs)
    order = sorted(range(len(encoded)), key=lambda i: -len(encoded[i].ids))
    out = np.empty((len(encoded), n_out), dtype=np.float64)
    device = model.device
    was_training = model.training
    model.eval()
    try:
        with torch.inference_mode():
            for start in range(0, len(order), batch_size):
                rows = order[start : start + batch_size]
                batch = model.inputs.collate([encoded[i] for i in rows]).to(device)
                out[rows] = model(batch).double().cpu().numpy()
    finally:
        model.train(was_training)
    return out


def predict_similarity(
    model: TaskModel, pairs: Sequence[tuple[str, str]], *, batch_size: int = PREDICT_BATCH
) -> np.ndarray:
    """The predicted similarity of each (sentence1, sentence2) pair, as float64 [n] (the
    head's output as it is, not clipped to 0..5)."""
    if model.kind != "regression":
        raise ValueError(f"predict_similarity needs a regression head (got {model.kind})")
    return predict_outputs(model, [(a, b) for a, b in pairs], batch_size=batch_size)[:, 0]


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


def evaluate_sts(
    model: TaskModel, dev_rows: Sequence[ScoredPair], *, batch_size: int = PREDICT_BATCH
) -> tuple[float | None, float | None]:
    """(Pearson, Spearman) of the predicted and gold similarity of `dev_rows`."""
    predicted = predict_similarity(
        model, [(r.sentence1, r.sentence2) for r in dev_rows], batch_size=batch_size
    )
    return correlations(predicted, [r.score for r in dev_rows])
