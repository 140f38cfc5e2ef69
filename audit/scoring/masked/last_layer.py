"""The last encoder layer computed only at the positions that are read.

With one masked token per copy, the last layer's output is needed at one position per
sequence. Its keys and values still need every position, but its queries, attention
output, and feed-forward block need only the read rows. For BERT-shaped layers (BERT,
RoBERTa: `attention.self.{query,key,value}`, `attention.output`, `feed_forward_chunk`,
absolute positions) the encoder runs its first L-1 layers and this module computes the
last one at the R read rows. That removes about 1/L of the encoder's work minus
the key/value projections. Other architectures take the plain path.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import torch
from torch import nn

if TYPE_CHECKING:
    from transformers import PreTrainedModel

# Model types whose layer code is BERT's (checked by tests on tiny BERT and RoBERTa).
_BERT_SHAPED = frozenset({"bert", "roberta"})


def _layers(model: PreTrainedModel) -> nn.ModuleList | None:
    encoder = getattr(model.base_model, "encoder", None)
    layers = getattr(encoder, "layer", None)
    return layers if isinstance(layers, nn.ModuleList) else None


def supports_last_layer_pruning(model: PreTrainedModel) -> bool:
    """True for BERT-shaped encoders with absolute positions and at least two layers."""
    config = model.config
    layers = _layers(model)
    if config.model_type not in _BERT_SHAPED or layers is None or len(layers) < 2:
        return False
    if getattr(config, "position_embedding_type", "absolute") not in (None, "absolute"):
        return False
    last = layers[-1]
    attention = getattr(last, "attention", None)
    self_attention = getattr(attention, "self", None)
    wanted = ("query", "key", "value", "num_attention_heads", "attention_head_size")
    return (
        self_attention is not None
        and all(hasattr(self_attention, name) for name in wanted)
        and hasattr(attention, "output")
        and hasattr(last, "feed_forward_chunk")
        and not getattr(config, "is_decoder", False)
    )


@contextmanager
def without_last_layer(model: PreTrainedModel) -> Iterator[nn.Module]:
    """Run the encoder with its first L-1 layers; yields the last layer."""
    encoder: Any = model.base_model.encoder
    layers = encoder.layer
    encoder.layer = nn.ModuleList(list(layers)[:-1])
    try:
        yield layers[-1]
    finally:
        encoder.layer = layers


def last_layer_at(
    layer: Any,
    hidden: torch.Tensor,
    attention_mask: torch.Tensor,
    rows: torch.Tensor,
    cols: torch.Tensor,
) -> torch.Tensor:
    """Output [R, d] of a BERT layer at (rows[r], cols[r]), given its input [B, T, d]."""
    attn = layer.attention.self
    heads, head_size = attn.num_attention_heads, attn.attention_head_size
    picked = hidden[rows, cols]  # [R, d]
    query = attn.query(picked).view(-1, heads, 1, head_size)
    batch, length, _ = hidden.shape
    key = attn.key(hidden).view(batch, length, heads, head_size).transpose(1, 2)[rows]
    value = attn.value(hidden).view(batch, length, heads, head_size).transpose(1, 2)[rows]
    allowed = attention_mask.bool()[rows][:, None, None, :]  # [R, 1, 1, T]
    context = torch.nn.functional.scaled_dot_product_attention(
        query, key, value, attn_mask=allowed
    )  # [R, heads, 1, head_size]
    attention_output = layer.attention.output(context.reshape(-1, heads * head_size), picked)
    return layer.feed_forward_chunk(attention_output)
