"""A regression head (STS-B: the similarity 0 to 5 of a sentence pair), its fine-tuning
(mean squared error on the gold scores), its predictions and the STS-B dev check
(Pearson and Spearman of predicted and gold scores)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import torch
from scipy import stats

from audit.errors import AuditUserError
from audit.extrinsic.finetune.examples import ScoredPair, regression_data_sha256
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


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(float(x)) else None


def correlations(predicted: np.ndarray, gold: Sequence[float]) -> tuple[float | None, float | None]:
    """(Pearson r, Spearman rho) of predicted and gold scores; None where undefined (fewer
    than 2 pairs, or constant predictions)."""
    x = np.asarray(predicted, dtype=np.float64)
    y = np.asarray(gold, dtype=np.float64)
    if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None, None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pearson = stats.pearsonr(x, y).statistic
        spearman = stats.spearmanr(x, y).statistic
    return _finite(pearson), _finite(spearman)


def predict_similarity(
    model: TaskModel, pairs: Sequence[tuple[str, str]], *, batch_size: int = PREDICT_BATCH
) -> np.ndarray:
    """The predicted similarity of each (sentence1, sentence2) pair, as float64 [n] (the
    head's output as it is, not clipped to 0..5)."""
    if model.kind != "regression":
        raise ValueError(f"predict_similarity needs a regression head (got {model.kind})")
    return predict_outputs(model, [(a, b) for a, b in pairs], batch_size=batch_size)[:, 0]


def evaluate_sts(
    model: TaskModel, dev_rows: Sequence[ScoredPair], *, batch_size: int = PREDICT_BATCH
) -> tuple[float | None, float | None]:
    """(Pearson, Spearman) of the predicted and gold similarity of `dev_rows`."""
    predicted = predict_similarity(
        model, [(r.sentence1, r.sentence2) for r in dev_rows], batch_size=batch_size
    )
    return correlations(predicted, [r.score for r in dev_rows])


def _check_rows(name: str, rows: Sequence[ScoredPair]) -> None:
    for i, row in enumerate(rows):
        score = float(row.score)
        if not math.isfinite(score):
            raise AuditUserError(f"fine-tuning: {name} pair {i + 1} has a non-finite score")


def finetune_regression(
    loaded: LoadedModel,
    train_rows: Sequence[ScoredPair],
    dev_rows: Sequence[ScoredPair],
    *,
    settings: FineTuneSettings,
    work_dir: Path,
    device: torch.device | None = None,
    on_checkpoint: OnCheckpoint | None = None,
    progress: Progress | None = None,
    stop_after: int | None = None,
    predict_batch: int = PREDICT_BATCH,
) -> FineTuned:
    """Fine-tune a regression head and a copy of `loaded`'s encoder on `train_rows`
    (MSE on the gold scores); `loaded` is not changed.

    `settings.seed` must be filled in (`FineTuneSettings.with_seed`); pooling defaults by
    model type. `work_dir` holds the checkpoints: one there is resumed from, and left
    there. At every `settings.checkpoint_every` steps and at the end the dev set is
    scored (Pearson, Spearman in the summary's `evaluations`) and `on_checkpoint(step,
    model)` is called. `stop_after` (a test hook) raises `TrainingInterrupted` after that
    many steps of this call, once their checkpoint is written.
    """
    if settings.seed is None:
        raise ValueError("settings.seed must be filled in (FineTuneSettings.with_seed)")
    if not train_rows:
        raise AuditUserError("fine-tuning (regression): no training pair")
    _check_rows("training", train_rows)
    _check_rows("dev", dev_rows)
    device = device if device is not None else loaded.device
    resolved = settings.resolved(loaded.model_type, settings.seed)
    assert resolved.pooling is not None and resolved.seed is not None
    model = build_task_model(
        loaded,
        kind="regression",
        n_outputs=1,
        pooling=resolved.pooling,
        max_length=resolved.max_length,
        head_dropout=resolved.head_dropout,
        seed=resolved.seed,
        device=device,
    )
    data = EncodedData(
        inputs=model.inputs.encode([(r.sentence1, r.sentence2) for r in train_rows]),
        targets=torch.tensor([float(r.score) for r in train_rows], dtype=torch.float32),
    )
    identity = finetune_identity(
        {
            "kind": "regression",
            "model": type(loaded.model).__name__,
            "fingerprint": loaded.fingerprint,
            "parameters": sum(p.numel() for p in model.parameters()),
            "data": regression_data_sha256(train_rows, dev_rows),
        },
        resolved,
    )

    def evaluate(m: TaskModel, step: int) -> DevEvaluation:
        pearson, spearman = evaluate_sts(m, dev_rows, batch_size=predict_batch)
        return DevEvaluation(step=step, n=len(dev_rows), pearson=pearson, spearman=spearman)

    summary = run_finetune(
        model,
        data,
        loss_fn=lambda out, target: torch.nn.functional.mse_loss(out[:, 0], target),
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
