"""What a measure computes: the options every measure accepts and the computing protocols.

A measure's name, card, input shape and options model live on its registry entry
(audit/measures/catalog.py); the objects here only compute.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from audit.results import MeasureValue

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from audit.scoring.base import ScorerInfo
    from audit.stats.draws import Draws


class MeasureOptions(BaseModel):
    """Options every measure accepts. Subclasses add their own; unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    compat: Literal["formula", "reference"] = Field(
        default="formula",
        description=(
            "'formula': the published formula; 'reference': the published code's arithmetic."
        ),
    )


@dataclass(frozen=True)
class MeasureCall:
    """What a measure's `compute` is given besides the score rows: the scorer's facts, the
    measure's validated options, and how to draw its intervals (`n_bootstrap` resamples
    from `seed`, 0: none; at level 1 - `alpha`)."""

    scorer: ScorerInfo
    options: MeasureOptions
    seed: int
    n_bootstrap: int
    alpha: float = 0.05


@runtime_checkable
class Measure(Protocol):
    """A measure of one model x dataset x scorer's score rows (shape `pairs`/`labelled`)."""

    def compute(self, scores: pd.DataFrame, call: MeasureCall) -> list[MeasureValue]:
        """One value per group with a CI at level 1 - alpha, and `alpha` is also the
        significance level of any flag the measure sets. CIs are percentile bootstrap
        intervals (`n_bootstrap` stratified resamples drawn from `seed`; 0 = no CI),
        withheld with a note ("too few items for an interval ...") below
        `audit.stats.intervals.MIN_ITEMS_FOR_INTERVAL` items or when zero-width, unless
        the measure has an exact interval (the bias score: Clopper-Pearson at any n)."""
        ...


@runtime_checkable
class CorpusMeasure(Protocol):
    """A measure of a text corpus named in its options (shape `corpus`)."""

    def compute_corpus(
        self, *, options: MeasureOptions, seed: int, n_bootstrap: int, alpha: float = 0.05
    ) -> MeasureValue:
        """The corpus's value, with a bootstrap CI when `n_bootstrap` > 0 (withheld, with
        a note, below `MIN_ITEMS_FOR_INTERVAL` lines or when zero-width)."""
        ...


class PreparedMeasure(ABC):
    """Base of the measures the cross-model statistics can redraw (see
    `audit.stats.inputs.Resamplable`): `compute` is `prepare` (score frame -> arrays),
    the bootstrap resamples of the arrays' strata (when `bootstraps`), and `evaluate`
    (arrays -> values with CIs); `values` evaluates the `all` value on every row of an
    index draw at once (NaN where undefined)."""

    def bootstraps(self) -> bool:
        """Whether `evaluate` takes its intervals from bootstrap resamples."""
        return True

    @abstractmethod
    def prepare(self, scores: pd.DataFrame, *, scorer: ScorerInfo) -> Any:
        """Arrays with `item_ids` and `strata` (bias type, or label x target groups)."""

    @abstractmethod
    def values(self, data: Any, draws: Draws, options: MeasureOptions) -> np.ndarray:
        """The `all` value on every row of `draws` (shape (B,)), NaN where undefined."""

    @abstractmethod
    def evaluate(
        self, data: Any, options: MeasureOptions, resamples: Draws | None, alpha: float
    ) -> list[MeasureValue]:
        """`compute` on prepared arrays and their resamples (None: no bootstrap)."""

    def compute(self, scores: pd.DataFrame, call: MeasureCall) -> list[MeasureValue]:
        """Every group's value, each with a CI at level 1 - alpha (see `Measure.compute`)."""
        from audit.stats.draws import bootstrap_draws

        data = self.prepare(scores, scorer=call.scorer)
        resamples = (
            bootstrap_draws(data.strata, n_resamples=call.n_bootstrap, seed=call.seed)
            if call.n_bootstrap > 0 and self.bootstraps()
            else None
        )
        return self.evaluate(data, call.options, resamples, call.alpha)
