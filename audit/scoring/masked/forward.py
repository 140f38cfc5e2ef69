"""One forward pass of a masked LM with the vocabulary projection only where it is needed.

A forward hook on the model's encoder (`model.base_model`) replaces its last hidden state
[B, T, d] by the rows at the requested (batch, position) pairs, shaped [1, R, d]. The
model's own LM head (BERT's `cls`, RoBERTa's `lm_head`, ALBERT's `predictions`,
DistilBERT's `vocab_*` layers, ...) then runs on those R rows only, so any
`*ForMaskedLM` whose head works token by token is served without knowing its layout.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import TYPE_CHECKING, Any

import torch

from audit.models.hidden_rows import forward_at_rows
from audit.scoring.masked.last_layer import last_layer_at, without_last_layer

if TYPE_CHECKING:
    from transformers import PreTrainedModel

    from audit.models.loaded import LoadedModel


def gathered_logits(
    model: PreTrainedModel,
    input_ids: torch.Tensor,
    attention_mask: torch.Tensor,
    rows: torch.Tensor,
    cols: torch.Tensor,
    *,
    output_attentions: bool = False,
    prune_last_layer: bool = False,
) -> tuple[torch.Tensor, tuple[torch.Tensor, ...] | None]:
    """Logits [R, V] at positions (rows[r], cols[r]), and the attentions when asked for.

    `prune_last_layer` (BERT-shaped models only, see `masked_last_layer`) computes the
    last encoder layer at the R rows only; it cannot return that layer's attentions.
    """
    if prune_last_layer and output_attentions:
        raise ValueError("prune_last_layer cannot return the attentions of the last layer")
    last_layer: Any = None

    def pick(hidden: torch.Tensor) -> torch.Tensor:
        # on a model spread over devices the encoder ends on another device than the inputs
        at = hidden.device
        if last_layer is not None:
            return last_layer_at(
                last_layer, hidden, attention_mask.to(at), rows.to(at), cols.to(at)
            )
        return hidden[rows.to(at), cols.to(at)]

    with without_last_layer(model) if prune_last_layer else nullcontext() as layer:
        last_layer = layer
        out = forward_at_rows(
            model, input_ids, attention_mask, pick, output_attentions=output_attentions
        )
    attentions = tuple(out.attentions) if output_attentions else None
    return out.logits[0], attentions


def log_probs_of_targets(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """log-softmax in float32 over the vocabulary, read at `targets` [R, K] -> [R, K].

    Computed as logit - logsumexp(logits), which is log_softmax without writing the
    [R, V] result out.
    """
    logits = logits.float()
    targets = targets.to(logits.device)  # a no-op unless the model is spread over devices
    return logits.gather(1, targets) - torch.logsumexp(logits, dim=-1, keepdim=True)


@contextmanager
def scoring_mode(loaded: LoadedModel, *, autocast: bool) -> Iterator[None]:
    """`inference_mode`, plus bf16/fp16 autocast on CUDA when the model asks for it."""
    with torch.inference_mode():
        use_autocast = (
            autocast and loaded.device.type == "cuda" and loaded.autocast_dtype is not None
        )
        if use_autocast:
            with torch.autocast(device_type="cuda", dtype=loaded.autocast_dtype):
                yield
        else:
            yield


@contextmanager
def eager_attention(model: PreTrainedModel) -> Iterator[None]:
    """Switch to the eager attention kernel (SDPA returns no weights), then switch back."""
    before = model.config._attn_implementation
    if before == "eager":
        yield
        return
    model.set_attn_implementation("eager")
    try:
        yield
    finally:
        model.set_attn_implementation(before)
