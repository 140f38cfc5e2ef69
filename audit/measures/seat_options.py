"""The options of a SEAT run: which tests, how a sentence becomes a vector, and the
permutation test's samples and seed. Pydantic only (no numerical library)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from audit.measures.base import MeasureOptions

#: The measure shape of SEAT: it reads its own sets of sentences (the test files in
#: `<data dir>/seat/`), not a dataset of the spec.
SENTENCE_SETS = "sentence_sets"

#: mean: the mean of the last hidden state over every token of the sentence, special
#: tokens included (bias-bench's `_encode`); first: the first token's state ([CLS] of
#: BERT-style models, May et al.'s choice for BERT).
Pooling = Literal["mean", "first"]


class SeatOptions(MeasureOptions):
    """What a SEAT run computes; the defaults are bias-bench's."""

    tests: tuple[str, ...] = Field(
        default=(),
        description="Test names (file names without .jsonl); empty: bias-bench's tests of "
        "`bias_types`.",
    )
    bias_types: tuple[Literal["gender", "race", "religion"], ...] = Field(
        default=("gender", "race", "religion"),
        description="bias-bench's test lists to run when `tests` is empty.",
    )
    pooling: Pooling = Field(
        default="mean",
        description="mean (bias-bench: every token of the last hidden state) or first "
        "(the first token's state, [CLS]).",
    )
    n_samples: int = Field(
        default=100_000,
        ge=2,
        description="Exact permutation test when C(2n, n) <= n_samples, else n_samples "
        "seeded partitions (bias-bench: 100,000).",
    )
    batch_size: int = Field(default=32, ge=1, description="Sentences per forward pass.")

    @model_validator(mode="after")
    def _something_to_run(self) -> SeatOptions:
        if not self.tests and not self.bias_types:
            raise ValueError("name `tests` or at least one of `bias_types`")
        return self
