"""Result records of the cross-model statistics (robustness, correlation, comparison).

Plain pydantic models, JSON-safe (None where a number does not exist), ready to be
embedded in results.json.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from audit.ids import KeyedIdentity, PluginId
from audit.results.comparison_verdict import ComparisonVerdict
from audit.results.record import Record


class ModelDrawSummary(Record):
    """One model's values of a measure across the subsample draws of one rate."""

    model: str
    full_value: float | None = Field(description="The value on the full dataset.")
    mean: float | None
    spread: float | None = Field(description="Standard deviation across draws (n-1).")
    min: float | None
    max: float | None
    n_undefined: int = Field(description="Draws on which the measure had no value.")
    side_kept_share: float | None = Field(
        description="Share of draws on the same side of the ideal value as the full data."
    )


class RobustnessRecord(Record):
    """The subsampling study (Liu 2024) of one measure at one rate."""

    measure: PluginId
    dataset: str
    scorer: PluginId
    group: str = "all"
    rate: float
    repeats: int
    n_items: int = Field(description="Items per subsample (stratified by bias type / label).")
    seed: int
    models: list[ModelDrawSummary]
    full_ordering: list[str] = Field(description="Models by full-data value, highest first.")
    ideal_value: float | None
    ordering_share: float | None = Field(description="Share of draws keeping the ordering.")
    side_share: float | None = Field(
        description="Share of draws keeping every model's side of the ideal value."
    )
    agreement_share: float | None = Field(description="Share of draws keeping both.")
    required_share: float
    verdict: Literal["robust", "not robust", "undefined"]
    note: str = ""


class MeasureSeries(KeyedIdentity, Record):
    """One measure on one dataset, group `all`, across models: a correlation's axis.

    Hashable (a key of `correlate_measures`' input); like a PluginId it is identified by
    measure and dataset, never by its label.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    measure: PluginId
    dataset: str
    label: str = Field(description="For people: 'measure label on dataset'. Never parsed.")

    @property
    def key(self) -> tuple[tuple[str, str], str]:
        """What identifies the series: the measure's key and the dataset."""
        return (self.measure.key, self.dataset)


class CorrelationRecord(Record):
    """Correlation of two measures across models (and variants)."""

    x: MeasureSeries
    y: MeasureSeries
    models: list[str] = Field(description="Models with a value for both measures.")
    n: int
    pearson_r: float | None = None
    pearson_p: float | None = None
    spearman_rho: float | None = None
    spearman_p: float | None = None
    kendall_tau: float | None = None
    kendall_p: float | None = None
    mutual_information: float | None = Field(
        None, description="Kraskov k-NN estimate in nats (clipped at 0)."
    )
    mi_neighbours: int | None = None
    conclusive: bool = Field(description="False below the minimum number of models.")
    note: str = ""


class ComparisonRecord(Record):
    """Model A (candidate, e.g. newer) against model B (baseline) on the same items."""

    measure: PluginId
    dataset: str
    scorer: PluginId
    group: str = "all"
    model_a: str
    model_b: str
    n_items: int
    value_a: float | None
    value_b: float | None
    difference: float | None = Field(description="value_a - value_b.")
    difference_ci_low: float | None = None
    difference_ci_high: float | None = None
    ideal_value: float
    distance_difference: float | None = Field(
        description="|value_a - ideal| - |value_b - ideal|; negative = A closer to the ideal."
    )
    distance_ci_low: float | None = None
    distance_ci_high: float | None = None
    p_value: float | None = Field(
        None, description="Two-sided paired-bootstrap p-value of the distance difference."
    )
    alpha: float
    n_bootstrap: int
    seed: int
    mcnemar_only_a: int | None = Field(
        None, description="Pairs where only A prefers S_st (pair sets)."
    )
    mcnemar_only_b: int | None = None
    mcnemar_p: float | None = None
    verdict: ComparisonVerdict = Field(
        description="What moved from B to A: closer to / further from the ideal value (the "
        "distance test), changed (the difference's CI excludes 0, the distance test decides "
        "neither), no detectable change, or undefined (see `audit.results.comparison_verdict`)."
    )
    note: str = ""
