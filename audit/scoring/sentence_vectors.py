"""Sentence vectors from a language model's last hidden state, as bias-bench's SEAT
takes them (`bias_bench/benchmark/seat/seat.py`, `_encode`).

The model's base (encoder or decoder stack, without its LM head) runs on each sentence
with the tokenizer's special tokens; the vector is the mean of the last hidden state
over every token of the sentence, special tokens included (`pooling="mean"`, bias-bench),
or the state of the first token (`pooling="first"`: [CLS] for BERT-style models).
Sentences are padded into batches and the mean is taken over real tokens only, which is
the unpadded sentence's mean. Rows come back in float64, scaled to length 1 as
bias-bench does (cosine similarity does not depend on the scale).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

import numpy as np
import torch

from audit.models.sequence_limit import sequence_limit
from audit.scoring.base import ScoringInputError

if TYPE_CHECKING:
    from audit.models.loaded import LoadedModel


def sentence_vectors(
    model: LoadedModel,
    texts: Sequence[str],
    *,
    pooling: Literal["mean", "first"] = "mean",
    batch_size: int = 32,
) -> np.ndarray:
    """One unit-length row per text (shape (len(texts), hidden size))."""
    if not texts:
        return np.zeros((0, 0))
    for index, text in enumerate(texts):
        if not text.strip():
            raise ScoringInputError(f"sentence {index} is empty: it has no vector")
    tokenizer = model.tokenizer
    size = batch_size if tokenizer.pad_token is not None else 1
    limit = sequence_limit(model.model, tokenizer)
    base = model.model.base_model
    autocast = (
        torch.autocast(device_type=model.device.type, dtype=model.autocast_dtype)
        if model.autocast_dtype is not None
        else contextlib.nullcontext()
    )
    rows: list[np.ndarray] = []
    with torch.inference_mode(), autocast:
        for start in range(0, len(texts), size):
            batch = list(texts[start : start + size])
            encoded = tokenizer(batch, return_tensors="pt", padding=size > 1)
            mask = encoded["attention_mask"]
            lengths = mask.sum(dim=1)
            if limit is not None and int(lengths.max()) > limit:
                worst = int(lengths.argmax())
                raise ScoringInputError(
                    f"sentence {start + worst} has {int(lengths[worst])} tokens; model "
                    f"'{model.model_id}' accepts at most {limit}: {batch[worst][:80]!r}"
                )
            inputs = {name: value.to(model.device) for name, value in encoded.items()}
            hidden = base(**inputs).last_hidden_state.float()
            weights = inputs["attention_mask"].unsqueeze(-1).float()
            if pooling == "mean":
                pooled = (hidden * weights).sum(dim=1) / weights.sum(dim=1)
            else:
                first = inputs["attention_mask"].argmax(dim=1)
                pooled = hidden[torch.arange(hidden.shape[0], device=hidden.device), first]
            rows.append(pooled.double().cpu().numpy())
    vectors = np.concatenate(rows, axis=0)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    if np.any(norms == 0):
        raise ScoringInputError("a sentence vector is all zeros: its direction is undefined")
    return vectors / norms
