"""A linear projection of a model's last hidden states, applied before the LM head.

Post-hoc debiasing (INLP, SentenceDebias; `audit.variants.projection`) stores its matrix
P (d x d) as `hidden_projection.safetensors` next to the model's own files. Loading such a
folder attaches a forward hook to the model's body (`model.base_model`: `bert`,
`transformer`, `model`, ...) that replaces its last hidden states h by h P^T, as
bias-bench's `*ForMaskedLM` / `*LMHeadModel` wrappers do; the last entry of
`hidden_states` (when asked for) is projected too, so every reader of the last layer
(the LM head, sentence vectors, a scorer calling the body itself) sees the same states.
The file is part of the model's fingerprint (role `projection`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit.errors import ModelSourceError

if TYPE_CHECKING:
    import torch
    from torch.utils.hooks import RemovableHandle
    from transformers import PreTrainedModel

PROJECTION_FILE = "hidden_projection.safetensors"
_KEY = "projection"


def save_projection(matrix: torch.Tensor, folder: Path) -> Path:
    """Write `matrix` (float32, d x d) into `folder`; returns the file."""
    from safetensors.torch import save_file

    path = folder / PROJECTION_FILE
    save_file({_KEY: matrix.detach().to("cpu").float().contiguous()}, str(path))
    return path


def read_projection(path: Path, model_id: str) -> torch.Tensor:
    """The matrix of a projection file (a clear error for a file that is not one)."""
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    try:
        tensors = load_file(str(path))
    except (OSError, SafetensorError) as error:
        raise ModelSourceError(f"model '{model_id}': cannot read {path}: {error}") from error
    matrix = tensors.get(_KEY)
    if matrix is None or matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ModelSourceError(
            f"model '{model_id}': {path} holds no square matrix under '{_KEY}' (a hidden-"
            "state projection written by the inlp / sentence_debias variant methods)"
        )
    return matrix


def _project(x: torch.Tensor, matrix: torch.Tensor) -> torch.Tensor:
    return x @ matrix.to(device=x.device, dtype=x.dtype).T


def attach_projection(model: PreTrainedModel, matrix: torch.Tensor) -> RemovableHandle:
    """Project the last hidden states of `model`'s body by `matrix` from now on; the
    handle's `remove()` undoes it."""
    body: Any = getattr(model, "base_model", model)
    if body is model:
        raise ModelSourceError(
            f"{type(model).__name__} has no separate body (base_model) whose last hidden "
            "states could be projected before the LM head"
        )
    size = getattr(model.config, "hidden_size", None) or getattr(model.config, "n_embd", None)
    if size is not None and int(size) != matrix.shape[0]:
        raise ModelSourceError(
            f"the hidden-state projection is {matrix.shape[0]} x {matrix.shape[1]}, but "
            f"{type(model).__name__} has hidden size {size}"
        )

    def hook(module: Any, args: Any, output: Any) -> Any:
        if isinstance(output, tuple):
            return (_project(output[0], matrix), *output[1:])
        output["last_hidden_state"] = _project(output["last_hidden_state"], matrix)
        states = output.get("hidden_states")
        if states is not None:
            output["hidden_states"] = (*states[:-1], _project(states[-1], matrix))
        return output

    return body.register_forward_hook(hook)
