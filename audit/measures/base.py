"""What a measure is: a card, the data shape it applies to, options, and `compute`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from audit.scoring.base import ScorerInfo
    from audit.stats.draws import Draws


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
    #: The unbiased value on the measure's scale (50 for the bias score, 1 for the safety
    #: score...); None when the measure has no ideal (normality). Robustness ("side of the
    #: ideal") and model comparison ("closer to the ideal = better") use it.
    ideal_value: float | None = None


class MeasureOptions(BaseModel):
    """Options every measure accepts. Subclasses add their own; unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    compat: Literal["formula", "reference"] = Field(
        default="formula",
        description=(
            "'formula': the published formula; 'reference': the published code's arithmetic."
        ),
    )


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
        alpha: float = 0.05,
    ) -> list[MeasureValue]:
        """One value per group; CIs are percentile bootstrap intervals at level 1 - alpha
        (`n_bootstrap` stratified resamples drawn from `seed`; 0 = no CI) and `alpha` is
        also the significance level of any flag the measure sets."""
        ...


class ResamplableMeasure(Measure, Protocol):
    """A measure the cross-model statistics (robustness, comparison) can redraw.

    `prepare` turns a score frame into arrays with `item_ids` and `strata` (bias type, or
    label x target groups); `values` evaluates the `all` value on every row of an index
    draw at once (NaN where undefined); `evaluate` is `compute` on prepared arrays.
    """

    def prepare(self, scores: pd.DataFrame, *, scorer: ScorerInfo) -> Any: ...

    def values(self, data: Any, draws: Draws, options: MeasureOptions) -> np.ndarray: ...

    def evaluate(
        self,
        data: Any,
        *,
        options: MeasureOptions,
        seed: int,
        n_bootstrap: int,
        alpha: float = 0.05,
    ) -> list[MeasureValue]: ...


class PreparedMeasure:
    """Base of resamplable measures: `compute` is `prepare` (score frame -> arrays)
    followed by `evaluate` (arrays -> values with CIs)."""

    def prepare(self, scores: pd.DataFrame, *, scorer: ScorerInfo) -> Any:
        raise NotImplementedError

    def evaluate(
        self,
        data: Any,
        *,
        options: MeasureOptions,
        seed: int,
        n_bootstrap: int,
        alpha: float = 0.05,
    ) -> list[MeasureValue]:
        raise NotImplementedError

    def compute(
        self,
        scores: pd.DataFrame,
        *,
        scorer: ScorerInfo,
        options: MeasureOptions,
        seed: int,
        n_bootstrap: int,
        alpha: float = 0.05,
    ) -> list[MeasureValue]:
        """Every group's value, each with a percentile CI at level 1 - alpha."""
        data = self.prepare(scores, scorer=scorer)
        return self.evaluate(data, options=options, seed=seed, n_bootstrap=n_bootstrap, alpha=alpha)
