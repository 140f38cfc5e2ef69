"""Dropout ramped in for a model never trained with dropout.

Dropout debiasing (Webster et al. 2020) continues the training of models pretrained with
dropout (BERT: 0.1) at a higher rate. A model whose own dropout is 0 everywhere
(`DropoutChanges.from_zero`; SmolLM2 and other Llama-style decoders) has never seen a
dropped unit: at the method's rates its first training loss is far above its loss
without dropout (SmolLM2-135M: 14.3 nats, worse than uniform over its vocabulary), so
the first updates follow the gradient of a broken model rather than a regularised one.
For such a model the rates rise linearly from 0 over the first `RAMP_SHARE` of the
steps, as curriculum dropout does (Morerio et al. 2017, "Curriculum Dropout", ICCV:
dropout raised from 0 to its target as training goes on), and the rest of the training
runs at the method's rates. Models pretrained with dropout get the rates from the first
step, as in Webster et al.

The share at step s (0-based) of T is min(1, (s + 1) / R) with R = max(1,
round(RAMP_SHARE * T)): a function of the step alone, so a resumed training ramps
exactly as an uninterrupted one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch

    from audit.training.dropout import DropoutChanges
    from audit.training.objective import StepLoss, TrainingObjective

#: Share of the training's steps over which the rates rise to the method's values.
RAMP_SHARE = 0.5


def ramp_steps(total: int) -> int:
    """Steps of the ramp in a training of `total` steps (at least 1)."""
    return max(1, round(RAMP_SHARE * total))


def ramp_share(step: int, total: int) -> float:
    """The share of the method's dropout rates that step `step` (0-based) runs at."""
    return min(1.0, (step + 1) / ramp_steps(total))


class DropoutRamp:
    """An objective whose steps run the applied dropout at the ramp's share."""

    def __init__(self, inner: TrainingObjective, dropout: DropoutChanges, total: int) -> None:
        self.inner = inner
        self.dropout = dropout
        self.total = total
        self.name = inner.name
        self.term_names = inner.term_names

    def step_loss(self, model: Any, step: int) -> StepLoss:
        self.dropout.set_share(ramp_share(step, self.total))
        return self.inner.step_loss(model, step)

    def state(self) -> dict[str, torch.Tensor]:
        return self.inner.state()

    def load_state(self, state: dict[str, torch.Tensor]) -> None:
        self.inner.load_state(state)

    def release(self) -> None:
        self.inner.release()
