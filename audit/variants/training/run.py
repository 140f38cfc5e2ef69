"""The variant trainer's public face: what to train on (`TrainingData`), with which loss
(`Objective`), the progress it reports (`TrainingStatus`) and `train_model`.

This module imports no torch at import time: methods build `TrainingData` and
`Objective` while planning. The data types live in `contract.py`, the loop in `loop.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from audit.variants.training.contract import (
    Objective,
    TrainingData,
    TrainingInterrupted,
    TrainingStatus,
)

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from audit.results import TrainingSummary
    from audit.variants.settings import TrainingSpec

__all__ = ["Objective", "TrainingData", "TrainingInterrupted", "TrainingStatus", "train_model"]


def train_model(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    *,
    model_type: Literal["masked", "causal"],
    objective: Objective,
    data: TrainingData,
    settings: TrainingSpec,
    work_dir: Path,
    device: torch.device,
    progress: Callable[[TrainingStatus], None] | None = None,
    stop_after: int | None = None,
) -> TrainingSummary:
    """Train `model` in place (LoRA adapters merged back into it before returning, dropout
    hooks removed, model left in eval mode on `device`). The caller saves it.

    `settings.seed` must be filled in (`TrainingSpec.with_seed`). `work_dir` holds the
    checkpoints: a checkpoint there is resumed from, and left there at the end.
    `stop_after` (a test hook) raises `TrainingInterrupted` after that many steps of this
    call, once their checkpoint is written.
    """
    from audit.variants.training.loop import run_training

    return run_training(
        model,
        tokenizer,
        model_type=model_type,
        objective=objective,
        data=data,
        settings=settings,
        work_dir=work_dir,
        device=device,
        progress=progress,
        stop_after=stop_after,
    )
