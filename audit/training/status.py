"""What every training reports while it runs (`TrainingStatus`, after each step) and its
test-hook interruption (`TrainingInterrupted`). Plain data, no torch."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TrainingStatus:
    """Passed to the progress callback after each step. `step` counts steps done (1 after
    the first); `loss` and `terms` are that step's; speed and ETA are this session's."""

    step: int
    total: int
    loss: float
    terms: dict[str, float]
    tokens_per_s: float
    eta_s: float | None
    resumed_from: int | None


class TrainingInterrupted(Exception):
    """Raised when `stop_after` steps have run (the checkpoint is written first)."""

    def __init__(self, step: int) -> None:
        super().__init__(f"training interrupted after step {step} (checkpoint written)")
        self.step = step
