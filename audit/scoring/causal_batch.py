"""The padded batch of a causal LM's scoring, shared by `ll`/`ppl` (`audit.scoring.causal`)
and `choice_ll` (`audit.scoring.choice`).

Sequences are right-padded to the batch's longest; position p - 1 predicts token p, and
the tokens of a sequence from its start on are the targets (`ll`: every token after the
context; `choice_ll`: the answer's tokens). The (row, col, target) triples name the
prediction positions the LM head is run on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from audit.scoring.transfer import to_device

if TYPE_CHECKING:
    import torch


@dataclass(frozen=True)
class CausalBatch:
    """Inputs of one forward pass and the prediction positions read from it."""

    input_ids: np.ndarray  # [rows, width] int64, right-padded with the pad id
    attention: np.ndarray  # [rows, width] int64, 1 on real tokens
    rows: np.ndarray  # [targets] int64: the sequence of each target
    cols: np.ndarray  # [targets] int64: the position that predicts it
    targets: np.ndarray  # [targets] int64: the token predicted

    def to(self, device: torch.device) -> CausalTensors:
        """The batch as tensors on `device` (sent without blocking on CUDA)."""
        arrays = (self.input_ids, self.attention, self.rows, self.cols, self.targets)
        return CausalTensors(*(to_device(array, device) for array in arrays))


@dataclass(frozen=True)
class CausalTensors:
    """A `CausalBatch` on the model's device."""

    input_ids: torch.Tensor
    attention: torch.Tensor
    rows: torch.Tensor
    cols: torch.Tensor
    targets: torch.Tensor


def padded_causal_batch(
    batch_ids: Sequence[Sequence[int]], starts: Sequence[int], pad_id: int
) -> CausalBatch:
    """The padded batch of `batch_ids`, whose tokens at positions >= `starts[i]` (at
    least 1: the first token has no prediction) are targets."""
    width = max(len(x) for x in batch_ids)
    input_ids = np.full((len(batch_ids), width), pad_id, dtype=np.int64)
    attention = np.zeros((len(batch_ids), width), dtype=np.int64)
    rows: list[int] = []
    cols: list[int] = []
    targets: list[int] = []
    for row, (seq, start) in enumerate(zip(batch_ids, starts, strict=True)):
        input_ids[row, : len(seq)] = seq
        attention[row, : len(seq)] = 1
        first = max(1, start)
        rows.extend([row] * max(0, len(seq) - first))
        cols.extend(range(first - 1, len(seq) - 1))
        targets.extend(seq[first:])
    return CausalBatch(
        input_ids,
        attention,
        np.array(rows, dtype=np.int64),
        np.array(cols, dtype=np.int64),
        np.array(targets, dtype=np.int64),
    )
