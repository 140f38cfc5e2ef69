"""What a fine-tuning did: plain pydantic, JSON-safe (None where a number does not exist,
never NaN), written to the artefact's `finetune.json` and ready to be copied to results.
No torch."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from audit.results.record import Record
from audit.results.variants import LossPoint


class DevEvaluation(Record):
    """The dev set scored at one step: Pearson and Spearman for a regression head,
    accuracy for a classifier (the others None)."""

    step: int
    n: int = Field(description="Dev examples scored.")
    pearson: float | None = None
    spearman: float | None = None
    accuracy: float | None = None


class FineTuneSummary(Record):
    """One fine-tuning of a task head and its encoder (all its sessions)."""

    kind: str = Field(
        description="The task head's name: regression, classification, or a plug-in task's own."
    )
    model_type: Literal["masked", "causal"]
    pooling: Literal["cls", "mean", "last"]
    labels: list[str] = Field(
        default_factory=list,
        description="A classifier's classes in the order of its outputs (empty for regression).",
    )
    steps: int
    examples: int = Field(description="Training examples available.")
    tokens: int = Field(description="Non-padding tokens read over all training steps.")
    seconds: float = Field(
        description="Wall time of the fine-tuning (all sessions), dev scoring and "
        "checkpoint callbacks included."
    )
    callback_seconds: float = Field(
        description="Part of `seconds` spent in dev scoring and checkpoint callbacks."
    )
    device: str
    resumed_from_step: int | None = Field(
        None, description="The checkpoint step an interrupted fine-tuning resumed from."
    )
    first_loss: float | None = None
    last_loss: float | None = None
    curve: list[LossPoint] = Field(
        default_factory=list, description="Mean loss of every logged window of steps."
    )
    checkpoint_steps: list[int] = Field(
        description="Steps at which the checkpoint callback ran: K, 2K, ... and the last."
    )
    evaluations: list[DevEvaluation] = Field(
        default_factory=list, description="Dev scores at the checkpoint steps (or the end)."
    )
    trainable_parameters: int
    settings: dict[str, Any] = Field(description="The settings used, seed and pooling filled in.")

    @property
    def final(self) -> DevEvaluation | None:
        """The dev scores at the last step, if the dev set was scored."""
        if self.evaluations and self.evaluations[-1].step == self.steps:
            return self.evaluations[-1]
        return None
