"""Device choice, CPU threads and the weights' dtype (the precision policy)."""

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
    """Let torch use every core this process may run on, or `OMP_NUM_THREADS` of them when
    that is set to a smaller positive number; returns the thread count."""
    import torch

    cores = cpu_threads()
    torch.set_num_threads(cores)
    return cores


def cpu_threads() -> int:
    """The cores this process may run on, capped by `OMP_NUM_THREADS` when it is a positive
    number (two audits sharing a machine each given one core: more threads than cores
    make torch's threads wait on each other, several times slower than one thread)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    asked = os.environ.get("OMP_NUM_THREADS", "").strip()
    if asked.isdigit() and int(asked) > 0:
        return min(cores, int(asked))
    return cores


def exact_float32(device: torch.device) -> None:
    """Keep float32 matrix products in full float32 on CUDA (no TF32), so that scores on a
    GPU equal the CPU's up to float32 rounding (issue 12: exact by default)."""
    import torch

    if device.type != "cuda":
        return
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")


WEIGHT_DTYPES = ("auto", "float32", "bfloat16", "float16")


def choose_weight_dtype(dtype: str, device: torch.device) -> torch.dtype:
    """The dtype the weights are loaded in. 'auto' and 'float32': float32 on every device
    (exact by default: a reduced precision changes verdicts, so it is only used when a
    spec asks for it). 'bfloat16' / 'float16' are used as given: the weights are loaded
    in that dtype (not float32 plus autocast), and scorers take the log-softmax of the
    logits in float32."""
    import torch

    if dtype in ("float32", "auto"):
        return torch.float32
    if dtype == "bfloat16":
        if device.type == "cuda" and not torch.cuda.is_bf16_supported():
            raise ModelSourceError(
                "dtype 'bfloat16' asked for, but this GPU does not support it; "
                "use dtype: float16 or float32"
            )
        return torch.bfloat16
    if dtype == "float16":
        return torch.float16
    raise ModelSourceError(f"dtype {dtype!r} is not one of {', '.join(WEIGHT_DTYPES)}")


def dtype_name(dtype: torch.dtype) -> str:
    """'float32' for torch.float32."""
    return str(dtype).removeprefix("torch.")
