"""The loss curve and the counters of a training, kept across interruptions.

Steps are grouped in windows of `ceil(total / CURVE_POINTS)` steps, aligned on the step
number (so a resumed training draws the same curve); each window becomes one `CurvePoint`
with the mean loss and terms of its steps. Losses stay on the device until a window
closes or a checkpoint is written: one host read per window, not per step.

A term an objective did not compute at a step is NaN in that step's values (AT's
`compat: reference` computes one term a step): a point's term is the mean over the steps
of its window that computed it, and a point whose window never computed a term leaves it
out. The loss itself is always the plain mean.

The points are plain data (`CurvePoint`); each caller turns them into its record type
(`audit.results.LossPoint` holds the same three fields).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch

#: Points on a training's loss curve (at most).
CURVE_POINTS = 100


@dataclass(frozen=True)
class CurvePoint:
    """The mean loss (and terms) of the window of steps that ends at `step`."""

    step: int
    loss: float
    terms: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class LossTracker:
    """Loss curve, tokens and seconds of one training (all its sessions)."""

    def __init__(self, total_steps: int, term_names: tuple[str, ...] = ()) -> None:
        self.total = total_steps
        self.window = max(1, math.ceil(total_steps / CURVE_POINTS))
        self.term_names = term_names
        self.curve: list[CurvePoint] = []
        self.tokens = 0
        self.seconds = 0.0
        self._host: list[list[float]] = []  # [loss, *terms] of the open window, read
        self._device: list[torch.Tensor] = []  # ... and not read yet

    def add(self, step: int, values: torch.Tensor, tokens: int) -> None:
        """Record step `step` (0-based): `values` = [loss, *terms] (a device tensor)."""
        self.tokens += tokens
        self._device.append(values.detach())
        done = step + 1
        if done % self.window == 0 or done == self.total:
            rows = self._read()
            self._host = []
            losses, *terms = zip(*rows, strict=True)
            computed = {
                name: [v for v in column if not math.isnan(v)]
                for name, column in zip(self.term_names, terms, strict=True)
            }
            self.curve.append(
                CurvePoint(
                    step=done,
                    loss=sum(losses) / len(losses),
                    terms={name: sum(vs) / len(vs) for name, vs in computed.items() if vs},
                )
            )

    def _read(self) -> list[list[float]]:
        if self._device:
            import torch

            self._host += torch.stack(self._device).double().tolist()
            self._device = []
        return self._host

    @property
    def first_loss(self) -> float | None:
        return self.curve[0].loss if self.curve else None

    @property
    def last_loss(self) -> float | None:
        return self.curve[-1].loss if self.curve else None

    def state(self) -> dict[str, Any]:
        """Plain data for a checkpoint (reads the open window)."""
        return {
            "curve": [p.as_dict() for p in self.curve],
            "tokens": self.tokens,
            "seconds": self.seconds,
            "open_window": [list(row) for row in self._read()],
        }

    def load_state(self, state: dict[str, Any]) -> None:
        self.curve = [
            CurvePoint(
                int(p["step"]), float(p["loss"]), {k: float(v) for k, v in p["terms"].items()}
            )
            for p in state["curve"]
        ]
        self.tokens = int(state["tokens"])
        self.seconds = float(state["seconds"])
        self._host = [[float(v) for v in row] for row in state["open_window"]]
        self._device = []
