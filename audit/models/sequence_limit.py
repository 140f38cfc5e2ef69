"""The longest token sequence a model accepts, read from its config and tokenizer."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

#: Models whose position ids start after the padding index (two positions fewer).
_OFFSET_POSITION_MODELS = frozenset({"roberta", "xlm-roberta", "camembert", "longformer"})


def sequence_limit(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase) -> int | None:
    """The longest sequence (special tokens included) the model accepts: its position
    embeddings and the tokenizer's `model_max_length`, whichever is shorter; None when
    neither says."""
    config = model.config
    limit = int(getattr(config, "max_position_embeddings", 0) or 0)
    if limit and config.model_type in _OFFSET_POSITION_MODELS:
        limit -= int(getattr(config, "pad_token_id", 1) or 1) + 1
    tokenizer_limit = int(getattr(tokenizer, "model_max_length", 0) or 0)
    if 0 < tokenizer_limit < 1_000_000:
        limit = min(limit, tokenizer_limit) if limit else tokenizer_limit
    return limit or None
