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
from audit.training.device import device_label
from audit.training.encode import collate, encode_sentences, pad_token_id

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
        """The sentences' mean-pooled last hidden states (`sentence_vectors`)."""
        return sentence_vectors(
            self.loaded, sentences, batch_size=self.batch_size, max_length=self.max_length
        )


@dataclass(frozen=True)
class SentenceVectors:
    """Sentence vectors (float32, [n, d]), the positions of the sentences they belong
    to (a sentence with no content token is left out) and the tokens encoded."""

    values: torch.Tensor
    kept: tuple[int, ...]
    tokens: int


@dataclass(frozen=True)
class ProjectionFit:
    """A computed projection, with the facts variant.json and the report keep."""

    matrix: torch.Tensor
    examples: int
    tokens: int
    facts: dict[str, Any] = field(default_factory=dict)


def sentence_vectors(
    loaded: LoadedModel, sentences: Sequence[str], *, batch_size: int, max_length: int
) -> SentenceVectors:
    """Per sentence, the mean over its real tokens (special tokens included, as bias-bench
    pools) of the last hidden states of the model's body."""
    rows = encode_sentences(
        loaded.tokenizer,
        loaded.model,
        sentences,
        model_type=loaded.model_type,
        max_length=max_length,
        what="projection sentences",
    )
    pad = pad_token_id(loaded.tokenizer)
    body: Any = loaded.model.base_model
    out: list[torch.Tensor] = []
    tokens = 0
    with torch.no_grad():  # not inference_mode: INLP's classifiers take gradients of them
        for start in range(0, len(rows), batch_size):
            batch = collate(rows[start : start + batch_size], pad).to(loaded.device)
            hidden = body(input_ids=batch.input_ids, attention_mask=batch.attention_mask)[0]
            mask = batch.attention_mask.unsqueeze(-1).float()
            out.append(((hidden.float() * mask).sum(1) / mask.sum(1)).cpu())
            tokens += batch.tokens
    values = torch.cat(out) if out else torch.zeros(0, 0)
    return SentenceVectors(values, tuple(row.index for row in rows), tokens)


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
