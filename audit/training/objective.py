"""What the training loop asks of an objective (masked LM, causal LM, AT, a task head,
or a method's own loss): the loss of a step, and any state of its own that a checkpoint
must carry. The objective draws its own batch for step s (`schedule.batch_indices`), so
the loop knows nothing of the data."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

if TYPE_CHECKING:
    import torch


class StepLoss(NamedTuple):
    """One step's loss (a scalar tensor with gradient), its named terms (scalar tensors,
    no gradient; NaN for a term the step did not compute) and the real tokens the
    trained model read."""

    loss: torch.Tensor
    terms: dict[str, torch.Tensor]
    tokens: int


class TrainingObjective(Protocol):
    """An objective bound to its training data.

    `name` goes into the training's summary; `term_names` are the keys of every step's
    `StepLoss.terms`, in the order the loss curve keeps them (empty: the loss alone).
    `state` / `load_state` carry what the objective computed during training (AT's
    attribute vectors) across a checkpoint; `release` drops what it holds (a frozen model
    copy) once the training is over."""

    name: str
    term_names: tuple[str, ...]

    def step_loss(self, model: Any, step: int) -> StepLoss: ...

    def state(self) -> dict[str, torch.Tensor]: ...

    def load_state(self, state: dict[str, torch.Tensor]) -> None: ...

    def release(self) -> None: ...


class StatelessObjective:
    """A base for objectives that keep nothing across steps (the LM objectives, a task
    head): no state to checkpoint, nothing to release."""

    def state(self) -> dict[str, torch.Tensor]:
        return {}

    def load_state(self, state: dict[str, torch.Tensor]) -> None:
        return None

    def release(self) -> None:
        return None
