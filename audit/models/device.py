"""Device choice, CPU threads and the autocast precision policy."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from audit.errors import ModelSourceError

if TYPE_CHECKING:
    import torch


def choose_device(device: str = "auto") -> torch.device:
    """'auto' -> cuda when available, else cpu; any other torch device string as given."""
    import torch

    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        chosen = torch.device(device)
    except RuntimeError as error:
        raise ModelSourceError(
            f"device {device!r} is not a torch device (expected auto, cpu, cuda or cuda:N)"
        ) from error
    if chosen.type == "cuda" and not torch.cuda.is_available():
        raise ModelSourceError(f"device {device!r} asked for, but CUDA is not available here")
    return chosen


def use_all_cores() -> int:
    """Let torch use every core this process may run on; returns the thread count."""
    import torch

    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    torch.set_num_threads(cores)
    return cores


def choose_autocast_dtype(dtype: str, device: torch.device) -> torch.dtype | None:
    """The autocast dtype for scoring. 'auto': None on CPU (float32 throughout); on CUDA
    bfloat16 when supported, else float16. 'float32': None. Explicit 'bfloat16' /
    'float16' are used as given (CPU autocast supports both)."""
    import torch

    if dtype == "float32":
        return None
    if dtype == "auto":
        if device.type != "cuda":
            return None
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    if dtype == "bfloat16":
        if device.type == "cuda" and not torch.cuda.is_bf16_supported():
            raise ModelSourceError(
                "dtype 'bfloat16' asked for, but this GPU does not support it; "
                "use dtype: float16 or float32"
            )
        return torch.bfloat16
    if dtype == "float16":
        return torch.float16
    raise ModelSourceError(f"dtype {dtype!r} is not one of auto, float32, bfloat16, float16")
