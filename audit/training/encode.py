"""Sentences to token ids for training, and padded batches of them.

Masked LMs: the tokenizer's ids with its special tokens ([CLS] x [SEP]), truncated to
`max_length`. Causal LMs: the same, with the BOS token prepended when the tokenizer adds
none and one exists (as `audit.scoring.causal` scores them, so the first word is
trained on too; SmolLM2's tokenizer adds no BOS), then cut to `max_length`.
`max_length` is lowered to the model's own limit (its position embeddings, or the
tokenizer's `model_max_length`) when that is shorter. Sentences with nothing to learn
from (no token that is not special; for causal LMs fewer than two tokens) are left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from audit.errors import AuditUserError
from audit.models.sequence_limit import sequence_limit

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase


@dataclass(frozen=True)
class Encoded:
    """One tokenised sentence: ids, which are special tokens, and character offsets."""

    index: int  # position of the sentence in the list that was encoded
    ids: tuple[int, ...]
    special: tuple[bool, ...]
    offsets: tuple[tuple[int, int], ...] | None = None


@dataclass(frozen=True)
class Batch:
    """Right-padded CPU tensors of a few encoded sentences."""

    input_ids: torch.Tensor  # [B, T] long
    attention_mask: torch.Tensor  # [B, T] long, 1 at real tokens
    special: torch.Tensor  # [B, T] bool, True at special tokens and padding
    tokens: int  # real (non-padding) tokens

    def to(self, device: torch.device) -> Batch:
        return Batch(
            self.input_ids.to(device, non_blocking=True),
            self.attention_mask.to(device, non_blocking=True),
            self.special.to(device, non_blocking=True),
            self.tokens,
        )


def bos_token_id(tokenizer: PreTrainedTokenizerBase, model: PreTrainedModel) -> int | None:
    """The BOS id a causal LM is trained with: the tokenizer's, else the config's."""
    bos = tokenizer.bos_token_id
    if bos is None:
        bos = getattr(model.config, "bos_token_id", None)
    return int(bos) if isinstance(bos, int) else None


def pad_token_id(tokenizer: PreTrainedTokenizerBase) -> int:
    """The id padding is written with (never attended to, never a target)."""
    for candidate in (tokenizer.pad_token_id, tokenizer.eos_token_id, tokenizer.unk_token_id):
        if isinstance(candidate, int):
            return candidate
    return 0


def encode_sentences(
    tokenizer: PreTrainedTokenizerBase,
    model: PreTrainedModel,
    sentences: Sequence[str],
    *,
    model_type: Literal["masked", "causal"],
    max_length: int,
    offsets: bool = False,
    what: str = "training sentences",
) -> list[Encoded]:
    """Encode `sentences`; those with nothing to learn from are dropped. `offsets` asks
    for character offsets (needs a fast tokenizer)."""
    if offsets and not getattr(tokenizer, "is_fast", False):
        raise AuditUserError(
            f"this training needs the character offsets of tokens to find words in the "
            f"{what}, which only a fast (Rust) tokenizer gives; the model's tokenizer "
            f"{type(tokenizer).__name__} is not one"
        )
    if not sentences:
        return []
    limit = sequence_limit(model, tokenizer)
    max_length = min(max_length, limit) if limit else max_length
    encoded = tokenizer(
        list(sentences),
        add_special_tokens=True,
        truncation=True,
        max_length=max_length,
        return_special_tokens_mask=True,
        return_offsets_mapping=offsets,
    )
    bos = bos_token_id(tokenizer, model) if model_type == "causal" else None
    out: list[Encoded] = []
    for index in range(len(sentences)):
        ids = list(encoded["input_ids"][index])
        special = [bool(s) for s in encoded["special_tokens_mask"][index]]
        spans = [tuple(o) for o in encoded["offset_mapping"][index]] if offsets else None
        if bos is not None and (not ids or ids[0] != bos):
            ids, special = [bos, *ids][:max_length], [True, *special][:max_length]
            spans = [(0, 0), *spans][:max_length] if spans is not None else None
        if model_type == "causal" and bos is not None and ids:
            special[0] = True
        content = sum(not s for s in special)
        if content == 0 or (model_type == "causal" and len(ids) < 2):
            continue
        out.append(
            Encoded(
                index=index,
                ids=tuple(ids),
                special=tuple(special),
                offsets=tuple((int(a), int(b)) for a, b in spans) if spans is not None else None,
            )
        )
    return out


def collate(rows: Sequence[Encoded], pad_id: int) -> Batch:
    """Right-pad `rows` into one batch (CPU tensors)."""
    import torch

    width = max(len(r.ids) for r in rows)
    input_ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    attention = torch.zeros((len(rows), width), dtype=torch.long)
    special = torch.ones((len(rows), width), dtype=torch.bool)
    for row, enc in enumerate(rows):
        n = len(enc.ids)
        input_ids[row, :n] = torch.tensor(enc.ids, dtype=torch.long)
        attention[row, :n] = 1
        special[row, :n] = torch.tensor(enc.special, dtype=torch.bool)
    return Batch(input_ids, attention, special, sum(len(r.ids) for r in rows))
