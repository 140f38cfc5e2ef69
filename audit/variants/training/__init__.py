"""The variant trainer: continued training of a base model with its own objective
(masked or next-token LM, optionally with dropout debiasing's dropout) or with AT, on CPU
or CUDA, seeded, checkpointed and resumable. See docs/training.md."""

from audit.variants.training.run import (
    Objective,
    TrainingData,
    TrainingInterrupted,
    TrainingStatus,
    train_model,
)

__all__ = ["Objective", "TrainingData", "TrainingInterrupted", "TrainingStatus", "train_model"]
