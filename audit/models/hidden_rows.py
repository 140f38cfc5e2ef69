"""Run a model with its last hidden state cut down to chosen rows.

A forward hook on the model's encoder/decoder (`model.base_model`) replaces its last
hidden state [B, T, d] by the rows a `pick` function chooses, shaped [1, R, d]. The
model's own head (BERT's `cls`, RoBERTa's `lm_head`, a causal LM's `lm_head`, ...) then
runs on those R rows only, so any model whose head works token by token is served
without knowing its layout.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel


def _replace_last_hidden(output: Any, picked: torch.Tensor) -> Any:
    if isinstance(output, tuple):
        return (picked, *output[1:])
    output["last_hidden_state"] = picked  # ModelOutput keeps key and attribute in sync
    return output


def forward_at_rows(
    model: PreTrainedModel,
    input_ids: torch.Tensor,
    attention_mask: torch.Tensor,
    pick: Callable[[torch.Tensor], torch.Tensor],
    **forward: Any,
) -> Any:
    """The model's output (`return_dict=True`, `forward` passed on) with the base model's
    last hidden state [B, T, d] replaced by `pick(hidden)` [R, d], shaped [1, R, d]: its
    logits come out [1, R, V]."""

    def hook(_module: Any, _args: Any, output: Any) -> Any:
        return _replace_last_hidden(output, pick(output[0]).unsqueeze(0))

    handle = model.base_model.register_forward_hook(hook)
    try:
        return model(
            input_ids=input_ids, attention_mask=attention_mask, return_dict=True, **forward
        )
    finally:
        handle.remove()
