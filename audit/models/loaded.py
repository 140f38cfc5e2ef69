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
    on CUDA it is bfloat16 or float16, and log-softmax still runs in float32."""

    model_id: str
    model_type: Literal["masked", "causal"]
    model: PreTrainedModel
    tokenizer: PreTrainedTokenizerBase
    device: torch.device
    autocast_dtype: torch.dtype | None
    fingerprint: str
