"""Training a variant (or a bias-controlled model): the method's `Objective` built into a
`TrainingObjective`, dropout settings and LoRA adapters put on the model for the length
of the training, and the one training loop (`audit.training.loop`) run on it. See
docs/training.md.

Callers import this module lazily (it imports torch); methods build `TrainingData` and
`Objective` while planning from `audit.variants.objective`, which does not.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

import torch

from audit.results import TrainingSummary
from audit.training.device import device_label, isolated_rng, left_for_inference
from audit.training.dropout import dropout_applied
from audit.training.dropout_ramp import DropoutRamp
from audit.training.loop import run_loop
from audit.training.lora import lora_adapters, require_peft
from audit.training.objective import TrainingObjective
from audit.training.status import TrainingInterrupted, TrainingStatus
from audit.variants.objective import Objective, ObjectiveSetup, TrainingData

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from audit.variants.settings import TrainingSpec

__all__ = [
    "Objective",
    "TrainingData",
    "TrainingInterrupted",
    "TrainingStatus",
    "build_objective",
    "train_model",
]


def training_identity(
    model: PreTrainedModel,
    model_type: str,
    objective: Objective,
    data: TrainingData,
    settings: TrainingSpec,
) -> str:
    """A hash of what makes two trainings the same (checkpoint_every left out): a
    checkpoint resumes only the training of the same identity."""
    facts = {
        "model": type(model).__name__,
        "parameters": sum(p.numel() for p in model.parameters()),
        "model_type": model_type,
        "objective": objective.identity(),
        "settings": settings.model_dump(mode="json", exclude={"checkpoint_every"}),
        "data": data.key_fields(),
    }
    return hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()


def build_objective(setup: ObjectiveSetup) -> TrainingObjective:
    """The objective's own builder (the language-model objective's without one); the
    builder checks that the data holds what it needs."""
    return setup.objective.builder()(setup)


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
    if settings.seed is None:
        raise ValueError("settings.seed must be filled in (TrainingSpec.with_seed)")
    seed = settings.seed
    if settings.lora is not None:
        require_peft()
    identity = training_identity(model, model_type, objective, data, settings)
    cast(Any, model).to(device)
    with isolated_rng(device):
        task = build_objective(
            ObjectiveSetup(
                model=model,
                tokenizer=tokenizer,
                model_type=model_type,
                objective=objective,
                data=data,
                batch_size=settings.batch_size,
                max_length=settings.max_length,
                seed=seed,
                device=device,
            )
        )
        total = settings.total_steps(data.n_examples())
        try:
            with (
                left_for_inference(model),
                dropout_applied(
                    model, attention=objective.attention_dropout, hidden=objective.hidden_dropout
                ) as dropout,
                lora_adapters(model, settings.lora, seed),
            ):
                # A model never trained with dropout gets it ramped in (`dropout_ramp`).
                ramped = DropoutRamp(task, dropout, total) if dropout.from_zero else None
                result = run_loop(
                    model,
                    task if ramped is None else ramped,
                    total=total,
                    settings=settings,
                    seed=seed,
                    identity=identity,
                    work_dir=work_dir,
                    progress=progress,
                    stop_after=stop_after,
                )
        finally:
            task.release()
    return TrainingSummary.model_validate(
        {
            "objective": task.name,
            "examples": data.n_examples(),
            "device": device_label(device),
            **result.summary_fields(),
        }
    )
