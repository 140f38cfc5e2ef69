"""Post-hoc variants (INLP, SentenceDebias): no training loop. The method's `fit`
computes a d x d projection once from the base model's sentence vectors; the variant is
stored as the base model's own files plus that matrix (`audit.models.projection`), so
it loads, like any variant, as a local model, whose last hidden states are projected
before the LM head."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from time import perf_counter
from typing import TYPE_CHECKING, Any

import torch

from audit.results import TrainingSummary
from audit.scoring.sentence_vectors import SentenceVectors, sentence_vectors
from audit.training.device import device_label

if TYPE_CHECKING:
    from pydantic import BaseModel

    from audit.models.loaded import LoadedModel
    from audit.variants.objective import TrainingData


@dataclass(frozen=True)
class ProjectionSetup:
    """What a projection is computed from: the base model, the method's data and
    options, the seed, and the batch shape of encoding (the variant's training settings)."""

    loaded: LoadedModel
    data: TrainingData
    options: BaseModel
    seed: int
    batch_size: int
    max_length: int
    loc: str

    def vectors(self, sentences: Sequence[str]) -> SentenceVectors:
        """The sentences' vectors (`projection_vectors`)."""
        return projection_vectors(
            self.loaded, sentences, batch_size=self.batch_size, max_length=self.max_length
        )


def projection_vectors(
    loaded: LoadedModel, sentences: Sequence[str], *, batch_size: int, max_length: int
) -> SentenceVectors:
    """The sentences' mean-pooled last hidden states, as they are (not normalised): each
    cut at `max_length` tokens, the BOS token prepended on a causal LM whose tokenizer
    adds none (as the training encoder does), a sentence with no content token left out
    (`kept` says which are there)."""
    return sentence_vectors(
        loaded,
        sentences,
        batch_size=batch_size,
        too_long="truncate",
        max_length=max_length,
        empty="skip",
        bos=loaded.model_type == "causal",
        normalise=False,
    )


@dataclass(frozen=True)
class ProjectionFit:
    """A computed projection, with the facts variant.json and the report keep."""

    matrix: torch.Tensor
    examples: int
    tokens: int
    facts: dict[str, Any] = field(default_factory=dict)


def projection_summary(
    name: str, fit: ProjectionFit, seconds: float, device: torch.device
) -> TrainingSummary:
    """The variant's summary: no step was trained; `examples` and `tokens` are what the
    projection was computed from."""
    return TrainingSummary.model_validate(
        {
            "objective": name,
            "steps": 0,
            "examples": fit.examples,
            "tokens": fit.tokens,
            "seconds": seconds,
            "device": device_label(device),
        }
    )


def fit_projection(setup: ProjectionSetup, fit: Any) -> tuple[ProjectionFit, float]:
    """`fit(setup)` and its wall time in seconds."""
    started = perf_counter()
    result = fit(setup)
    return result, perf_counter() - started
