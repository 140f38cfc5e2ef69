"""A task model's outputs on many inputs (eval mode, no gradient, float32, longest inputs
first for little padding, returned in the inputs' order). What a head kind makes of them
(similarities, class probabilities, its dev metric) is the kind's
(`audit.extrinsic.head_kinds`; the built-ins in `audit.extrinsic.kinds`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from audit.extrinsic.finetune.examples import TextInput
from audit.extrinsic.finetune.heads import TaskModel
from audit.extrinsic.finetune.settings import PREDICT_BATCH


def predict_outputs(
    model: TaskModel, inputs: Sequence[TextInput], *, batch_size: int = PREDICT_BATCH
) -> np.ndarray:
    """The head's outputs [n, n_outputs] (float64) for each input (a text or a pair). The
    model's training/eval mode is put back afterwards."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1 (got {batch_size})")
    n_out = model.head.out.out_features
    if not inputs:
        return np.zeros((0, n_out), dtype=np.float64)
    encoded = model.inputs.encode(inputs)
    order = sorted(range(len(encoded)), key=lambda i: -len(encoded[i].ids))
    out = np.empty((len(encoded), n_out), dtype=np.float64)
    device = model.device
    was_training = model.training
    model.eval()
    try:
        with torch.inference_mode():
            for start in range(0, len(order), batch_size):
                rows = order[start : start + batch_size]
                batch = model.inputs.collate([encoded[i] for i in rows]).to(device)
                out[rows] = model(batch).double().cpu().numpy()
    finally:
        model.train(was_training)
    return out
