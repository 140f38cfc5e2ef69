"""The settings of one extrinsic fine-tuning (pydantic, no torch: `audit validate` reads
them). See docs/extrinsic.md, "Fine-tuning"."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from audit.errors import AuditUserError
from audit.variants.settings import TrainingLength

Pooling = Literal["cls", "mean", "last"]
ModelType = Literal["masked", "causal"]
#: Passes over the training data when neither `steps` nor `epochs` is given (the
#: usual BERT fine-tuning on GLUE tasks, STS-B included: Devlin et al. 2019).
DEFAULT_EPOCHS = 3.0
#: Which poolings each model type accepts; the first is the default.
POOLINGS: dict[str, tuple[Pooling, ...]] = {
    "masked": ("cls", "mean"),
    "causal": ("last", "mean"),
}


class FineTuneSettings(TrainingLength):
    """Fine-tuning a task head and the encoder together. Give `steps` or `epochs`, not
    both; with neither, 3 epochs."""

    DEFAULT_EPOCHS: ClassVar[float] = DEFAULT_EPOCHS

    steps: int | None = Field(default=None, ge=1, description="Optimiser steps.")
    epochs: float | None = Field(default=None, gt=0, description="Passes over the training data.")
    learning_rate: float = Field(default=2e-5, gt=0, lt=1, description="Peak AdamW learning rate.")
    batch_size: int = Field(default=16, ge=1, le=4096, description="Examples per step.")
    max_length: int = Field(
        default=128, ge=8, le=8192, description="Tokens per example (a pair: both sentences)."
    )
    warmup: float = Field(
        default=0.1,
        ge=0,
        lt=1,
        description="Share of the steps with linear warm-up, then linear decay.",
    )
    weight_decay: float = Field(default=0.0, ge=0, lt=1, description="AdamW weight decay.")
    head_dropout: float = Field(
        default=0.1, ge=0, lt=1, description="Dropout before each of the head's two linear layers."
    )
    seed: int | None = Field(
        default=None,
        description="Seed of the head's initial weights, data order and dropout; default: "
        "the spec's seed.",
    )
    checkpoint_every: int = Field(
        default=100,
        ge=1,
        description="K: every K steps a checkpoint is written and a point of the "
        "bias-over-fine-tuning curve is taken (and one at the end).",
    )
    pooling: Pooling | None = Field(
        default=None,
        description="What the head reads: 'cls' (first token) or 'mean' (mean of the last "
        "hidden states) for masked LMs, 'last' (last real token) or 'mean' for causal LMs. "
        "Default: cls for masked LMs, last for causal LMs.",
    )
    dev_at_checkpoints: bool = Field(
        default=True,
        description="Score the dev set at every checkpoint (true) or only at the end (false).",
    )

    def pooling_for(self, model_type: ModelType) -> Pooling:
        """The pooling used on a model of `model_type`; an AuditUserError when the setting
        does not fit it."""
        allowed = POOLINGS[model_type]
        if self.pooling is None:
            return allowed[0]
        if self.pooling not in allowed:
            raise AuditUserError(
                f"fine-tuning pooling: {self.pooling!r} does not apply to a {model_type} LM; "
                f"use one of {', '.join(allowed)} (default {allowed[0]})"
                + (
                    ": a causal LM has no CLS token, and its last real token is the only one "
                    "that has read the whole input"
                    if self.pooling == "cls"
                    else ""
                )
            )
        return self.pooling

    def resolved(self, model_type: ModelType, seed: int) -> FineTuneSettings:
        """The settings as they are used (seed and pooling filled in): what a cache key and
        a record hold."""
        return self.with_seed(seed).model_copy(update={"pooling": self.pooling_for(model_type)})
