"""Where a model's weights go while they load, and where its inputs go afterwards.

With accelerate installed (a dependency), weights are read straight onto the chosen
device (`device_map={"": device}`), so host memory holds no full float32 copy of the
model. `device_map: auto` on CUDA spreads the model over every visible GPU, with CPU
memory as the last resort (accelerate's `device_map="auto"`); on a CPU run it loads on
the CPU. Without accelerate the model loads on the CPU and is then moved.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING, Any

from audit.models.sources import ModelSpec

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel


def has_accelerate() -> bool:
    return importlib.util.find_spec("accelerate") is not None


def placement_kwargs(spec: ModelSpec, device: torch.device) -> dict[str, Any]:
    """`from_pretrained` keyword arguments that place the weights while they load; empty
    when accelerate is missing (the caller then moves the loaded model)."""
    if not has_accelerate():
        return {}
    if spec.device_map == "auto" and device.type == "cuda":
        return {"device_map": "auto", "low_cpu_mem_usage": True}
    return {"device_map": {"": str(indexed(device))}, "low_cpu_mem_usage": True}


def indexed(device: torch.device) -> torch.device:
    """`cuda` -> `cuda:<current device>`; any other device as it is."""
    import torch

    if device.type == "cuda" and device.index is None:
        return torch.device("cuda", torch.cuda.current_device())
    return device


def is_spread(model: PreTrainedModel) -> bool:
    """True when accelerate spread the model over more than one device (it must then not
    be moved as a whole)."""
    device_map = getattr(model, "hf_device_map", None) or {}
    return len({_label(w) for w in device_map.values()}) > 1


def _label(where: Any) -> str:
    """A device map's value as a device string: 0 -> 'cuda:0', 'cpu', 'disk'."""
    return f"cuda:{where}" if isinstance(where, int) else str(where)


def input_device(model: PreTrainedModel, default: torch.device) -> torch.device:
    """Where inputs go: for a model spread over devices, the first device in its map that
    holds weights (accelerate runs CPU-offloaded parts there too); else `default`."""
    import torch

    device_map = getattr(model, "hf_device_map", None)
    if not device_map or len({_label(w) for w in device_map.values()}) <= 1:
        return default
    for where in map(_label, device_map.values()):
        if where not in ("cpu", "disk"):
            return torch.device(where)
    return torch.device("cpu")


def spread_over(model: PreTrainedModel) -> list[str]:
    """The distinct devices a loaded model's weights are on, in map order (one device for
    a model that was not spread)."""
    device_map = getattr(model, "hf_device_map", None)
    if device_map:
        return list(dict.fromkeys(_label(w) for w in device_map.values()))
    return sorted({str(p.device) for p in model.parameters()})
