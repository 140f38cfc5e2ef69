"""What the training loop asks of an objective: the loss of a step, and any state of its
own that a checkpoint must carry."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, NamedTuple, Protocol

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel


class StepLoss(NamedTuple):
    """One step's loss (a scalar tensor with gradient), its named terms (scalar tensors,
    no gradient) and the real tokens the trained model read."""

    loss: torch.Tensor
    terms: dict[str, torch.Tensor]
    tokens: int


class TrainingTask(Protocol):
    """An objective bound to its training data."""

    name: Literal["masked_lm", "causal_lm", "at"]

    def step_loss(self, model: PreTrainedModel, step: int) -> StepLoss: ...

    def state(self) -> dict[str, torch.Tensor]: ...

    def load_state(self, state: dict[str, torch.Tensor]) -> None: ...
