"""Sentence vectors from a language model's last hidden state: the one encoder of SEAT
(`audit.measures.seat_run`, as bias-bench's SEAT takes them, `bias_bench/benchmark/seat/
seat.py`, `_encode`) and of the post-hoc projections INLP and SentenceDebias
(`audit.variants.posthoc`, as bias-bench's `bias_bench/debias/`).

The model's base (encoder or decoder stack, without its LM head) runs on each sentence
with the tokenizer's special tokens; the vector is the mean of the last hidden state
over every token of the sentence, special tokens included (`pooling="mean"`, bias-bench),
or the state of the first token (`pooling="first"`: [CLS] for BERT-style models).
Sentences are right-padded into batches of `batch_size` (with the tokenizer's pad token,
else its EOS, else its UNK) and the mean is taken over real tokens only, which is the
unpadded sentence's mean; the pooling runs in float32. The callers' choices:

- `too_long`: a sentence longer than the model accepts (or than `max_length`) is an
  error naming it (`"error"`, SEAT), or is cut to that length (`"truncate"`, the
  projections; a masked LM keeps its final [SEP] as the tokenizer truncates);
- `empty`: a sentence with no token that is not a special token (and a blank one) is an
  error naming it (`"error"`), or is left out (`"skip"`; `kept` lists the others);
- `bos`: prepend the model's BOS token when the tokenizer adds none (the projections on
  a causal LM, as `audit.training.encode` encodes sentences for training);
- `normalise`: scale every row to length 1 (SEAT, as bias-bench: cosine similarity does
  not depend on the scale), or keep the pooled state as it is (the projections).

Rows come back in float64: the float32 pooled values exactly, or scaled to length 1.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
import torch

from audit.models.sequence_limit import sequence_limit
from audit.scoring.base import ScoringInputError
from audit.training.encode import Encoded, bos_token_id, collate, pad_token_id

if TYPE_CHECKING:
    from audit.models.loaded import LoadedModel

Pooling = Literal["mean", "first"]
TooLong = Literal["error", "truncate"]
Empty = Literal["error", "skip"]


@dataclass(frozen=True)
class SentenceVectors:
    """One float64 row per kept sentence ([len(kept), hidden size]), the positions of
    the sentences they belong to, and the tokens encoded (special tokens included)."""

    values: np.ndarray
    kept: tuple[int, ...]
    tokens: int


def sentence_vectors(
    model: LoadedModel,
    texts: Sequence[str],
    *,
    pooling: Pooling = "mean",
    batch_size: int = 32,
    too_long: TooLong = "error",
    max_length: int | None = None,
    empty: Empty = "error",
    bos: bool = False,
    normalise: bool = True,
) -> SentenceVectors:
    """The texts' sentence vectors (module docstring for the options)."""
    rows = _encode(model, texts, too_long=too_long, max_length=max_length, empty=empty, bos=bos)
    if not rows:
        return SentenceVectors(np.zeros((0, 0)), (), 0)
    pad = pad_token_id(model.tokenizer)
    base = model.model.base_model
    autocast = (
        torch.autocast(device_type=model.device.type, dtype=model.autocast_dtype)
        if model.autocast_dtype is not None
        else contextlib.nullcontext()
    )
    out: list[np.ndarray] = []
    with torch.inference_mode(), autocast:
        for start in range(0, len(rows), batch_size):
            batch = collate(rows[start : start + batch_size], pad).to(model.device)
            attention = batch.attention_mask
            hidden = base(input_ids=batch.input_ids, attention_mask=attention)[0].float()
            if pooling == "mean":
                weights = attention.unsqueeze(-1).float()
                pooled = (hidden * weights).sum(dim=1) / weights.sum(dim=1)
            else:
                first = attention.argmax(dim=1)
                pooled = hidden[torch.arange(hidden.shape[0], device=hidden.device), first]
            out.append(pooled.double().cpu().numpy())
    vectors = np.concatenate(out, axis=0)
    if normalise:
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        if np.any(norms == 0):
            raise ScoringInputError("a sentence vector is all zeros: its direction is undefined")
        vectors = vectors / norms
    return SentenceVectors(vectors, tuple(r.index for r in rows), sum(len(r.ids) for r in rows))


def _encode(
    model: LoadedModel,
    texts: Sequence[str],
    *,
    too_long: TooLong,
    max_length: int | None,
    empty: Empty,
    bos: bool,
) -> list[Encoded]:
    """Token ids per sentence, with the `too_long`, `empty` and `bos` rules applied."""
    if not texts:
        return []
    tokenizer = model.tokenizer
    if empty == "error":
        for index, text in enumerate(texts):
            if not text.strip():
                raise ScoringInputError(f"sentence {index} is empty: it has no vector")
    limit = sequence_limit(model.model, tokenizer)
    cap = min(n for n in (max_length, limit) if n is not None) if (max_length or limit) else None
    who = (
        f"model '{model.model_id}' accepts"
        if cap is not None and cap == limit
        else "max_length allows"
    )
    cut = too_long == "truncate" and cap is not None
    encoded = tokenizer(
        list(texts),
        add_special_tokens=True,
        truncation=cut,
        max_length=cap if cut else None,
        return_special_tokens_mask=True,
    )
    bos_id = bos_token_id(tokenizer, model.model) if bos else None
    rows: list[Encoded] = []
    for index, text in enumerate(texts):
        ids = list(encoded["input_ids"][index])
        special = [bool(s) for s in encoded["special_tokens_mask"][index]]
        if bos_id is not None and ids and ids[0] != bos_id:
            ids, special = [bos_id, *ids], [True, *special]
            if cut and cap is not None:
                ids, special = ids[:cap], special[:cap]
        if bos_id is not None and ids:
            special[0] = True
        if cap is not None and len(ids) > cap:
            raise ScoringInputError(
                f"sentence {index} has {len(ids)} tokens; {who} at most {cap}: {text[:80]!r}"
            )
        if all(special):
            if empty == "skip":
                continue
            raise ScoringInputError(
                f"sentence {index} has no token but the tokenizer's special ones: {text[:80]!r}"
            )
        rows.append(Encoded(index=index, ids=tuple(ids), special=tuple(special)))
    return rows
