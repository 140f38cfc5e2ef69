"""The settings of one extrinsic fine-tuning (pydantic, no torch: `audit validate` reads
them). See docs/extrinsic.md, "Fine-tuning"."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from audit.errors import AuditUserError
from audit.variants.settings import TrainingLoop

Pooling = Literal["cls", "mean", "last"]
ModelType = Literal["masked", "causal"]
#: Which checkpoint's predictions a task measures: the one with the best dev score (Kaneko
#: et al. 2022, section 4.3: "the best performance checkpoint on development data is
#: selected"), or the last.
CheckpointRule = Literal["best_dev", "last"]
#: Passes over the training data when neither `steps` nor `epochs` is given: 2, within
#: Devlin et al. 2019's grid for GLUE ({2, 3, 4}); on STS-B minilm-mlm reaches a dev
#: Pearson above 0.8 well within it (benchmarks/sts_finetune.py).
DEFAULT_EPOCHS = 2.0
#: The settings that change no weight and no curve point, only which checkpoint is read:
#: left out of the cache key, the resume identity and the summary's settings.
SELECTION_FIELDS = frozenset({"checkpoint"})
#: The settings that say how many fine-tunings to run, not how one runs: each seed's
#: fine-tuning is keyed by its own seed, so these are left out of the key too (a spec with
#: `seeds: 1` keeps the keys it had before the field existed).
REPEAT_FIELDS = frozenset({"seeds"})
#: Inputs per forward pass when predicting (dev scores, curve points).
PREDICT_BATCH = 64
#: Which poolings each model type accepts; the first is the default.
POOLINGS: dict[str, tuple[Pooling, ...]] = {
    "masked": ("cls", "mean"),
    "causal": ("last", "mean"),
}


class FineTuneSettings(TrainingLoop):
    """Fine-tuning a task head and the encoder together (AdamW, linear warm-up then linear
    decay, gradient clipping). Give `steps` or `epochs`, not both; with neither, 2
    epochs."""

    DEFAULT_EPOCHS: ClassVar[float] = DEFAULT_EPOCHS

    learning_rate: float = Field(
        default=5e-5,
        gt=0,
        lt=1,
        description="Peak AdamW learning rate (the top of Kaneko et al. 2022's grid).",
    )
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
    head_dropout: float = Field(
        default=0.1, ge=0, lt=1, description="Dropout before each of the head's two linear layers."
    )
    seed: int | None = Field(
        default=None,
        description="Seed of the head's initial weights, data order and dropout; default: "
        "the spec's seed. With `seeds` k > 1, the first of the seeds s, s+1, ..., s+k-1.",
    )
    seeds: int = Field(
        default=1,
        ge=1,
        description="Fine-tunings per model, with the seeds s, s+1, ..., s+k-1 (s: `seed`, "
        "else the spec's seed), each cached on its own. The task's value is the mean over "
        "the seeds whose fine-tuning passed the dev check, with its spread; 1: one "
        "fine-tuning, as before the field existed.",
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
    checkpoint: CheckpointRule = Field(
        default="best_dev",
        description="Which checkpoint the task is measured at: 'best_dev' (the highest dev "
        "score; the earliest of equal ones; the last when the dev set is scored at the end "
        "only) or 'last'. The one used is in the results and the report.",
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

    def training_dump(self) -> dict[str, Any]:
        """The settings as JSON without `SELECTION_FIELDS` and `REPEAT_FIELDS`: what decides
        one fine-tuning's weights and curve (the cache key, the stored description and the
        summary hold this)."""
        return self.model_dump(mode="json", exclude=set(SELECTION_FIELDS | REPEAT_FIELDS))

    def seed_list(self, spec_seed: int) -> tuple[int, ...]:
        """The seeds of the fine-tunings of one model: s, s+1, ..., s+k-1, where s is
        `seed` (else `spec_seed`) and k is `seeds`."""
        first = self.seed if self.seed is not None else spec_seed
        return tuple(first + i for i in range(self.seeds))

    def for_seed(self, seed: int) -> FineTuneSettings:
        """The settings of the fine-tuning with `seed` (one of `seed_list`)."""
        return self.model_copy(update={"seed": seed})

    def resolved(self, model_type: ModelType, seed: int) -> FineTuneSettings:
        """The settings as they are used (seed and pooling filled in): what a cache key and
        a record hold."""
        return self.with_seed(seed).model_copy(update={"pooling": self.pooling_for(model_type)})
