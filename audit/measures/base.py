"""What a measure is: a card, the data shape it applies to, options, and `compute`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    import pandas as pd

    from audit.scoring.base import ScorerInfo


@dataclass(frozen=True)
class MeasureCard:
    """The text shown next to a measure's numbers in reports and `audit list measures -v`."""

    name: str
    title: str
    what: str
    inputs: str
    direction: str
    ideal: str
    citation: str
    limitations: tuple[str, ...]


class MeasureOptions(BaseModel):
    """Options every measure accepts. Subclasses add their own; unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    compat: Literal["formula", "reference"] = "formula"


class MeasureValue(BaseModel):
    """One value of a measure for one group (`all`, a bias type or a target group).

    `status` is `undefined` (with `value` None and the reason in `note`) whenever the
    measure has no defined value: zero variance, one item, all ties, NaN scores, ...
    """

    model_config = ConfigDict(extra="forbid")

    group: str = "all"
    value: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    n: int
    p_value: float | None = None
    status: Literal["ok", "undefined"] = "ok"
    note: str = ""
    details: dict[str, Any] = Field(default_factory=dict)


class Measure(Protocol):
    """A registered measure. `scores` holds one model x dataset x scorer's score rows."""

    name: str
    card: MeasureCard
    applies_to: Literal["pairs", "labelled"]
    options_model: type[MeasureOptions]

    def compute(
        self,
        scores: pd.DataFrame,
        *,
        scorer: ScorerInfo,
        options: MeasureOptions,
        seed: int,
        n_bootstrap: int,
    ) -> list[MeasureValue]: ...
