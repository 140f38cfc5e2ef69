"""The device side of a training: its label in summaries, the fork of the global
random state that keeps a training's seeding from leaking into the caller, and the
model's state when a training ends."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:
    from torch import nn


def device_label(device: torch.device) -> str:
    if device.type == "cuda":
        return f"{device} ({torch.cuda.get_device_name(device)})"
    return str(device)


@contextmanager
def isolated_rng(device: torch.device) -> Iterator[None]:
    """Run the block with the global torch RNG state (CPU and, on CUDA, `device`'s) put
    back as it was afterwards: a training seeds every step, its caller's draws stay its own."""
    cuda: list[int] = []
    if device.type == "cuda":
        cuda = [device.index if device.index is not None else torch.cuda.current_device()]
    with torch.random.fork_rng(devices=cuda):
        yield


@contextmanager
def left_for_inference(model: nn.Module) -> Iterator[None]:
    """Run the block (a training) and then, also when it fails or is interrupted, drop the
    model's gradients and put it in eval mode: a trained model leaves ready for inference."""
    try:
        yield
    finally:
        model.zero_grad(set_to_none=True)
        model.eval()
