"""Everything in a training that depends on the step number alone: the seeds of each
step, which examples a step reads, and the learning-rate factor. Nothing here holds
state, so a training resumed at step k does exactly what an uninterrupted one does.

Seeds are derived with numpy's `SeedSequence` from (seed, stream, step or pass): the
same numbers on every machine and Python version (no `hash()`).
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np


class Stream(IntEnum):
    """Independent random streams of one training."""

    ORDER = 0  # data order of the LM sentences / AT target sentences
    MASKING = 1  # which tokens a masked-LM step masks, and what replaces them
    DROPOUT = 2  # the torch seed set before each step's forward pass
    ATTRIBUTE_ORDER = 3  # data order of AT's attribute sentences
    LORA_INIT = 4  # initial LoRA adapter weights
    TERM_ORDER = 5  # AT reference: which term each step of a pass trains
    ATTRIBUTE_VECTORS = 6  # AT reference: the attribute sentences behind a pass's vectors


def derive_seed(seed: int, stream: Stream, index: int) -> int:
    """A 63-bit seed for (seed, stream, index); any int seed (negative too) is accepted."""
    entropy = [seed % 2**64, int(stream), index]
    return int(np.random.SeedSequence(entropy).generate_state(1, np.uint64)[0] >> np.uint64(1))


def permutation(n: int, seed: int, stream: Stream, epoch: int) -> np.ndarray:
    """The seeded order of `n` examples in pass `epoch` over them."""
    return np.random.default_rng(derive_seed(seed, stream, epoch)).permutation(n)


def batch_indices(n: int, batch_size: int, step: int, seed: int, stream: Stream) -> list[int]:
    """The examples step `step` (0-based) reads: positions step*b .. step*b+b-1 of the
    endless sequence of seeded per-pass permutations (a batch at the end of a pass takes
    the rest of it and the start of the next)."""
    if n <= 0:
        raise ValueError("no examples to draw a batch from")
    out: list[int] = []
    position = step * batch_size
    cached_epoch = -1
    order = np.empty(0, dtype=np.int64)
    while len(out) < batch_size:
        epoch, offset = divmod(position, n)
        if epoch != cached_epoch:
            order, cached_epoch = permutation(n, seed, stream, epoch), epoch
        take = min(batch_size - len(out), n - offset)
        out.extend(int(i) for i in order[offset : offset + take])
        position += take
    return out


def lr_factor(step: int, total: int, warmup: float) -> float:
    """The learning rate of step `step` (0-based) as a share of the peak: linear warm-up
    over the first round(warmup * total) steps, then linear decay towards zero; no step
    runs at zero (the first warm-up step has 1/W, the last step 1/(total - W))."""
    warmup_steps = min(round(warmup * total), total - 1)
    if step < warmup_steps:
        return (step + 1) / warmup_steps
    return max(0.0, (total - step) / (total - warmup_steps))
