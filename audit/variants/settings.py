"""What a spec says about a variant: its base, method, corpus and training settings.

Plain pydantic data (no torch): the spec, `audit plan` and the trainer all read these.
The method's own options are validated against the method's options model (registry
`audit.variants.catalog.VARIANT_METHODS`) by `audit.spec.checks`.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, Self

from pydantic import Field, model_validator
from pydantic_core import PydanticCustomError

from audit.models.sources import ID_PATTERN, Strict

#: Built-in corpora (`audit.variants.corpus_builtin` reads them; a test keeps both in step).
BUILTIN_CORPUS_NAMES = ("sts_b", "sotu")


class CorpusSpec(Strict):
    """A text corpus: a built-in name, or a user file (one sentence per line, or CSV/JSONL
    with a text column)."""

    name: str | None = Field(None, description="A built-in corpus, e.g. sts_b.")
    path: str | None = Field(
        None,
        description="A user file: .txt (one sentence per line), .csv/.tsv or .jsonl (with "
        "`column`); relative paths are read from the spec file's folder.",
    )
    column: str | None = Field(None, description="CSV/TSV/JSONL: the column with the text.")
    limit: int | None = Field(None, gt=0, description="Keep the first N sentences.")

    @model_validator(mode="after")
    def _one_source(self) -> CorpusSpec:
        if (self.name is None) == (self.path is None):
            raise PydanticCustomError(
                "corpus_source",
                "a corpus is either a built-in `name` or a user file `path`",
                {"expected": "e.g. `corpus: sts_b` or `corpus: {path: my.txt}`"},
            )
        return self

    @property
    def label(self) -> str:
        return self.name if self.name is not None else str(self.path)


class LoraSpec(Strict):
    """Train LoRA adapters (peft) instead of every weight; merged into the saved model."""

    r: int = Field(8, ge=1, description="Adapter rank.")
    alpha: int = Field(16, ge=1, description="LoRA scaling numerator (lora_alpha).")
    dropout: float = Field(0.05, ge=0, lt=1, description="Dropout on the adapter input.")
    target_modules: list[str] | None = Field(
        None, description="Module names to adapt; default: peft's choice for the architecture."
    )


class TrainingLoop(Strict):
    """The loop of a training: how long it runs (`steps` or `epochs`, not both; with
    neither, DEFAULT_EPOCHS), the batch size that turns epochs into steps, the AdamW
    schedule, the seed that `with_seed` fills in and the checkpoint interval. Declared
    once for variant training (whose defaults and words these are) and extrinsic
    fine-tuning, which declares again only the fields whose default or meaning differs."""

    DEFAULT_EPOCHS: ClassVar[float] = 1.0

    steps: int | None = Field(default=None, ge=1, description="Optimiser steps.")
    epochs: float | None = Field(default=None, gt=0, description="Passes over the training data.")
    learning_rate: float = Field(default=5e-5, gt=0, lt=1, description="Peak AdamW learning rate.")
    batch_size: int = Field(default=16, ge=1, le=4096, description="Sentences per step.")
    max_length: int = Field(
        default=64, ge=8, le=8192, description="Tokens per sentence (truncated)."
    )
    warmup: float = Field(
        default=0.0,
        ge=0,
        lt=1,
        description="Share of the steps with linear warm-up, then linear decay.",
    )
    weight_decay: float = Field(default=0.0, ge=0, lt=1, description="AdamW weight decay.")
    seed: int | None = Field(
        default=None,
        description="Seed of data order, masking and dropout; default: the spec's seed.",
    )
    checkpoint_every: int = Field(
        default=50, ge=1, description="Steps between checkpoints (a killed training resumes there)."
    )

    @model_validator(mode="after")
    def _steps_or_epochs(self) -> Self:
        if self.steps is not None and self.epochs is not None:
            raise PydanticCustomError(
                "training_length",
                "give `steps` or `epochs`, not both",
                {"got": f"steps {self.steps}, epochs {self.epochs}", "expected": "one of them"},
            )
        return self

    def with_seed(self, seed: int) -> Self:
        """These settings with the seed filled in (the spec's seed when none was given)."""
        return self if self.seed is not None else self.model_copy(update={"seed": seed})

    def total_steps(self, n_examples: int) -> int:
        """Optimiser steps for `n_examples` training examples."""
        if self.steps is not None:
            return self.steps
        epochs = self.epochs if self.epochs is not None else self.DEFAULT_EPOCHS
        per_epoch = -(-n_examples // self.batch_size)
        return max(1, round(per_epoch * epochs))


class TrainingSpec(TrainingLoop):
    """Continued training of the base model (its own objective: masked LM with 15% masking
    for masked LMs, next-token for causal LMs). Give `steps` or `epochs`, not both; with
    neither, one epoch."""

    lora: LoraSpec | None = Field(default=None, description="Train LoRA adapters (needs `peft`).")


def corpus_item(value: Any) -> Any:
    """The shorthand `corpus: sts_b` -> `{name: sts_b}`."""
    return {"name": value} if isinstance(value, str) else value


class VariantSpec(Strict):
    """A debiased or controlled version of one of the spec's models, trained and then
    audited exactly like a model (`audit list variants` shows the methods)."""

    id: str = Field(
        pattern=ID_PATTERN,
        description="Model id of the variant in results and reports (bias_controlled: the "
        "prefix of its ratio models, `<id>-r0.3`).",
    )
    base: str = Field(description="The id of the model (under `models`) it is derived from.")
    method: str = Field(
        description="cda, dropout, at, bias_controlled, inlp, sentence_debias or self_debias."
    )
    corpus: CorpusSpec | None = Field(
        None,
        description="Training text: a built-in name or a user file (every method but "
        "self_debias needs one).",
    )
    training: TrainingSpec = Field(
        default_factory=lambda: TrainingSpec.model_validate({}),
        description="Continued-training settings.",
    )
    options: dict[str, Any] = Field(
        default_factory=dict, description="The method's options (`audit list variants -v`)."
    )

    @model_validator(mode="before")
    @classmethod
    def _corpus_shorthand(cls, value: Any) -> Any:
        if isinstance(value, dict) and value.get("corpus") is not None:
            return {**value, "corpus": corpus_item(value["corpus"])}
        return value


ModelType = Literal["masked", "causal"]
