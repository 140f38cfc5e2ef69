"""bitsandbytes quantisation on loading (CUDA only, the optional `quant` extra).

A quantised model computes other numbers than the same model unquantised, so the
quantisation is part of the model's precision label (and so of every score cache key):
4-bit weights are NF4 ("nf4"), 8-bit weights LLM.int8 ("int8").
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING, Any

from audit.errors import ModelSourceError
from audit.models.sources import ModelSpec

if TYPE_CHECKING:
    import torch

#: bits -> the name the precision label gives the scheme
SCHEMES = {4: "nf4", 8: "int8"}


def quantization_suffix(spec: ModelSpec) -> str:
    """'' for an unquantised model, '+nf4' / '+int8' for a bitsandbytes one."""
    if spec.quantization is None:
        return ""
    return f"+{SCHEMES[spec.quantization.bits]}"


def check_quantization(spec: ModelSpec, device: torch.device) -> None:
    """Raise ModelSourceError unless the spec's quantisation can run here: on CUDA, with
    bitsandbytes installed. Nothing to check for an unquantised model."""
    if spec.quantization is None:
        return
    bits = spec.quantization.bits
    if device.type != "cuda":
        raise ModelSourceError(
            f"model '{spec.id}': `quantization: {{bits: {bits}}}` needs a CUDA device "
            f"(bitsandbytes), but this run is on {device}; remove `quantization:` or run "
            "on a GPU (--device cuda)"
        )
    if importlib.util.find_spec("bitsandbytes") is None:
        raise ModelSourceError(
            f"model '{spec.id}': `quantization: {{bits: {bits}}}` needs the bitsandbytes "
            "package; install it with: pip install 'bias-audit[quant]'"
        )


def quantization_config(spec: ModelSpec, compute_dtype: torch.dtype) -> Any:
    """The transformers `BitsAndBytesConfig` for the spec (None when unquantised)."""
    if spec.quantization is None:
        return None
    from transformers import BitsAndBytesConfig

    if spec.quantization.bits == 4:
        return BitsAndBytesConfig(
            load_in_4bit=True,
            bnb_4bit_quant_type="nf4",
            bnb_4bit_compute_dtype=compute_dtype,
        )
    return BitsAndBytesConfig(load_in_8bit=True)
