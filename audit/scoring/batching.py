"""Packing sequences into batches under a token budget, and the budget itself.

Sequences are sorted by length (stable: ties keep their input order, so all masked
copies of one sentence, which share its length, stay together) and cut greedily into
batches whose padded size `len(batch) * longest` stays within the budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

#: Padded tokens per forward pass on CPU. Measured on a 2-core CPU with a 6-layer,
#: 384-wide BERT (benchmarks/scoring.py): CPS throughput peaks near 2k tokens and falls
#: about 25% by 16k; larger batches also pad more and hold bigger [rows, vocab] logits.
CPU_TOKEN_BUDGET = 2048
#: Bounds for the budget derived from free accelerator memory.
MIN_TOKEN_BUDGET = 256
MAX_TOKEN_BUDGET = 262_144


def pack_by_length(lengths: Sequence[int], token_budget: int) -> list[list[int]]:
    """Indices of `lengths` grouped into batches, shortest sequences first.

    A sequence longer than the budget gets a batch of its own.
    """
    if token_budget < 1:
        raise ValueError(f"token budget must be positive, got {token_budget}")
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches: list[list[int]] = []
    current: list[int] = []
    for index in order:
        longest = lengths[index]  # ascending order: the newest is the longest
        if current and (len(current) + 1) * longest > token_budget:
            batches.append(current)
            current = []
        current.append(index)
    if current:
        batches.append(current)
    return batches


def default_token_budget(
    device: torch.device, *, hidden_size: int, num_layers: int, intermediate_size: int
) -> int:
    """Padded tokens per batch: a fixed budget on CPU, a share of free memory on CUDA.

    On CUDA the budget is half the free memory divided by a per-token estimate of the
    live activations (hidden states, feed-forward block, attention probabilities for a
    128-token sequence, all in float32), so a batch fits with room for the allocator.
    """
    if device.type != "cuda":
        return CPU_TOKEN_BUDGET
    import torch

    free_bytes, _total = torch.cuda.mem_get_info(device)
    per_token = 4 * (8 * hidden_size + 2 * intermediate_size + 2 * 128 * max(1, num_layers // 4))
    budget = int(0.5 * free_bytes / per_token)
    return max(MIN_TOKEN_BUDGET, min(MAX_TOKEN_BUDGET, budget))
