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
    """One measure on one dataset (and, for an intrinsic measure, one scorer), group `all`,
    across models: a correlation's axis.

    Hashable (a key of `correlate_measures`' input); like a PluginId it is identified by
    measure, dataset and scorer, never by its label. Since results_version 3.0 a series
    holds each model's distance to the measure's ideal value (`scale: distance`); older
    files hold raw values (`scale: raw`, no scorer: a model's first scorer).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    measure: PluginId
    dataset: str
    label: str = Field(description="For people: 'measure label on dataset'. Never parsed.")
    scorer: PluginId | None = Field(
        default=None,
        description="The scorer of every value of an intrinsic series; None for an extrinsic "
        "task (and in files before 3.0, where a model's first scorer was taken).",
    )
    scale: Literal["raw", "distance"] = Field(
        default="raw",
        description="'distance': each value is |value - ideal_value| (lower = closer to the "
        "ideal); 'raw': the measure's own values (files before 3.0).",
    )
    ideal_value: float | None = Field(
        default=None, description="The measure's ideal value the distances are taken to."
    )

    @property
    def key(self) -> tuple[tuple[str, str], str, tuple[str, str] | None]:
        """What identifies the series: the measure's key, the dataset, the scorer's key."""
        return (self.measure.key, self.dataset, None if self.scorer is None else self.scorer.key)


class ExcludedModel(Record):
    """A model left out of a correlation, and why (e.g. its fine-tuning failed the task's
    dev check)."""

    model: str
    series: str = Field(description="The label of the series whose value was left out.")
    reason: str


class CorrelationRecord(Record):
    """Correlation of two measures across models (and variants).

    The p-values are corrected for the number of tests in the record's `test_family`
    (every correlation of the same kind in the audit, e.g. every intrinsic x extrinsic
    pair) by `correction`; `conclusive` needs a Kendall test that can reach significance
    at alpha after that correction with this many models (`kendall_p_floor`).
    """

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
    conclusive: bool = Field(
        description="True when the corrected Kendall test can reach significance at alpha "
        "with this many models (files before 3.0: at least 5 models)."
    )
    note: str = ""
    correction: Literal["holm", "bh"] | None = Field(
        default=None,
        description="Multiple-comparison correction of the p-values: 'holm' (family-wise "
        "error) or 'bh' (Benjamini-Hochberg, false discovery rate); None in files before 3.0.",
    )
    test_family: str = Field(
        default="",
        description="The tests corrected together: 'intrinsic x extrinsic', 'intrinsic' or "
        "'extrinsic' (both series of that kind).",
    )
    family_size: int | None = Field(
        default=None, description="Kendall tests in the family (m of the correction)."
    )
    pearson_p_corrected: float | None = None
    spearman_p_corrected: float | None = None
    kendall_p_corrected: float | None = None
    kendall_p_floor: float | None = Field(
        default=None,
        description="The smallest corrected Kendall p-value attainable with n models (exact "
        "test: 2/n!, times the family size under Holm); above alpha, no conclusion is "
        "possible whatever the values.",
    )
    alpha: float | None = Field(default=None, description="The level `conclusive` is judged at.")
    model_types: list[str] = Field(
        default_factory=list,
        description="The model types (masked, causal) of `models`; more than one = a row "
        "mixing model families.",
    )
    excluded: list[ExcludedModel] = Field(
        default_factory=list,
        description="Models left out because their fine-tuning failed the task's dev check.",
    )
    failed_kept: list[str] = Field(
        default_factory=list,
        description="Models in `models` whose fine-tuning failed the dev check, kept by "
        "the spec (`correlations.failed_dev_check: keep`).",
    )

    @property
    def mixes_families(self) -> bool:
        """Whether the models are of more than one type (masked and causal)."""
        return len(self.model_types) > 1


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
