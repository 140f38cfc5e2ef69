"""A model's precision label: what, beyond its files, changes the numbers it computes.

The label is "<device type>/<weights dtype>[+<quantisation>]", e.g. `cpu/float32`,
`cuda/bfloat16`, `cuda/bfloat16+nf4`. It goes into every score cache key and into
results.json. The device map is not in it: how a model is spread over devices does not
change its numbers beyond the device type's own rounding.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from audit.errors import ModelSourceError
from audit.models.device import choose_weight_dtype, dtype_name
from audit.models.quantization import check_quantization, quantization_suffix
from audit.models.sources import ModelSpec

if TYPE_CHECKING:
    import torch


def model_precision(spec: ModelSpec, device: torch.device) -> str:
    """The precision label of `spec` run on `device`; raises ModelSourceError when the
    spec's dtype or quantisation cannot run there."""
    if spec.backend == "llama_cpp":
        return f"cpu/{llama_cpp_label(spec.id)}"
    dtype = choose_weight_dtype(spec.dtype, device)
    check_quantization(spec, device)
    return f"{device.type}/{dtype_name(dtype)}{quantization_suffix(spec)}"


def llama_cpp_label(model_id: str) -> str:
    """'llama.cpp-0.3.36': what computes a `backend: llama_cpp` model's scores (its
    version is in the cache key: another build may round differently)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"llama.cpp-{version('llama-cpp-python')}"
    except PackageNotFoundError as error:
        raise ModelSourceError(
            f"model '{model_id}': backend: llama_cpp needs llama-cpp-python with its server: "
            "pip install 'llama-cpp-python[server]' (scripts/install.sh builds it), or use "
            "backend: torch"
        ) from error
