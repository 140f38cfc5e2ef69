"""Attention implementation: SDPA for speed, eager when attention weights are needed.

Models load with SDPA where the class supports it; SDPA cannot return attention weights
(`output_attentions=True` gives an empty tuple). Scorers that need them (AULA) wrap
their forward passes in `eager_attention(loaded.model)`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from transformers import PreTrainedModel


def attention_implementation(model: PreTrainedModel) -> str:
    """The attention implementation a loaded model runs with ('sdpa', 'eager', ...)."""
    return str(getattr(model.config, "_attn_implementation", None) or "eager")


@contextlib.contextmanager
def eager_attention(model: PreTrainedModel) -> Iterator[PreTrainedModel]:
    """Run the block with eager attention (so `output_attentions=True` returns weights),
    then switch back to the implementation the model had."""
    before = attention_implementation(model)
    if before == "eager":
        yield model
        return
    model.set_attn_implementation("eager")
    try:
        yield model
    finally:
        model.set_attn_implementation(before)
