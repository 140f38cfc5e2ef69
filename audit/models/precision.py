"""A model's precision label: what, beyond its files, changes the numbers it computes.

The label is "<device type>/<weights dtype>[+<quantisation>]", e.g. `cpu/float32`,
`cuda/bfloat16`, `cuda/bfloat16+nf4`. It goes into every score cache key and into
results.json. The device map is not in it: how a model is spread over devices does not
change its numbers beyond the device type's own rounding.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from audit.models.device import choose_weight_dtype, dtype_name
from audit.models.quantization import check_quantization, quantization_suffix
from audit.models.sources import ModelSpec

if TYPE_CHECKING:
    import torch


def model_precision(spec: ModelSpec, device: torch.device) -> str:
    """The precision label of `spec` run on `device`; raises ModelSourceError when the
    spec's dtype or quantisation cannot run there."""
    dtype = choose_weight_dtype(spec.dtype, device)
    check_quantization(spec, device)
    return f"{device.type}/{dtype_name(dtype)}{quantization_suffix(spec)}"
