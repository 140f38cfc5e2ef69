"""Result records of the cross-model statistics (robustness, correlation, comparison).

Plain pydantic models, JSON-safe (None where a number does not exist), ready to be
embedded in results.json.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from audit.ids import KeyedIdentity, PluginId
from audit.results.comparison_verdict import ComparisonVerdict, CorrectedVerdict
from audit.results.detection import DetectionLimit
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
        description="Since 4.0: True when the table's Kendall test had at least the target "
        "power (0.8 by default) at the effect size the spec names (`detection`), so that a "
        "non-significant result says the correlation is weaker than that. 3.x: the corrected "
        "Kendall test could reach significance at all (`kendall_p_floor` <= alpha); before "
        "3.0: at least 5 models."
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
    detection: DetectionLimit | None = Field(
        default=None,
        description="What the test could have detected with these models and this family's "
        "correction (4.0); None in older files and when no test was computed.",
    )
    kendall_tau_ci_low: float | None = Field(
        default=None,
        description="Two-level bootstrap interval of Kendall tau-b (4.0): the models "
        "resampled, and within each model the items of every series in `items_resampled`.",
    )
    kendall_tau_ci_high: float | None = None
    spearman_rho_ci_low: float | None = None
    spearman_rho_ci_high: float | None = None
    items_resampled: list[str] = Field(
        default_factory=list,
        description="The series whose items (benchmark pairs, task templates) the interval "
        "resamples within each model; a series not named enters with its values as "
        "measured, so the interval leaves its item noise out.",
    )
    trivial: str = Field(
        default="",
        description="Why the pair is not a finding, when it is one by construction: the two "
        "series are identical on every model, one is a rescaling of the other, or both are "
        "computed from the same scores' Gaussian fits. Such pairs are shown but left out of "
        "every count of significant pairs (4.0).",
    )

    @property
    def mixes_families(self) -> bool:
        """Whether the models are of more than one type (masked and causal)."""
        return len(self.model_types) > 1


#: The families of paired comparisons a run corrects together (`ComparisonRecord.test_family`).
VARIANT_FAMILY = "variants against their base"
RATIO_FAMILY = "ratio models against their base"
MODEL_FAMILY = "models against each other"
#: A debiased variant against its base on a downstream (extrinsic) task.
DOWNSTREAM_FAMILY = "variants against their base, downstream"


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
    verdict: CorrectedVerdict = Field(
        description="What moved from B to A (see `audit.results.comparison_verdict`). Since "
        "4.0 it is decided by the p-values corrected over `test_family` (`correction`): "
        "closer to / further from the ideal (the distance test), changed (the test of A - B), "
        "no detectable change, borderline (the decision depends on the resampling: "
        "`borderline_reason`), or undefined. Before 4.0 it was `verdict_uncorrected`."
    )
    verdict_uncorrected: ComparisonVerdict | None = Field(
        default=None,
        description="The verdict from the two (1 - alpha) intervals alone, before any "
        "correction (4.0; None in older files, whose `verdict` is this one).",
    )
    difference_p: float | None = Field(
        default=None,
        description="Two-sided p-value of A - B = 0: McNemar's exact test for a measure that "
        "counts pair preferences (`difference_test`), else the paired bootstrap's.",
    )
    difference_test: Literal["exact McNemar", "paired bootstrap"] | None = None
    difference_se: float | None = Field(
        default=None, description="Standard deviation of A - B over the bootstrap resamples."
    )
    resamples_for_p: int | None = Field(
        default=None,
        description="Resamples behind the bootstrap p-values: n_bootstrap, or more when a "
        "p-value could decide a corrected verdict (so that alpha / m can be resolved).",
    )
    correction: Literal["holm", "bh"] | None = Field(
        default=None, description="The correction over `test_family`; None before 4.0."
    )
    test_family: str = Field(
        default="",
        description="The comparisons corrected together: 'variants against their base', "
        "'ratio models against their base', 'models against each other', or a comparison "
        "run's.",
    )
    family_size: int | None = Field(default=None, description="Tests in the family (m).")
    p_value_corrected: float | None = Field(
        default=None, description="`p_value` (the distance test) corrected over the family."
    )
    difference_p_corrected: float | None = Field(
        default=None, description="`difference_p` corrected over the family."
    )
    borderline_reason: str = Field(
        default="",
        description="Why the verdict is 'borderline': the corrected decision differs across "
        "the Monte-Carlo uncertainty of a bootstrap p-value, or a decisive interval's bound "
        "lies within one item of 0.",
    )
    detectable_difference: float | None = Field(
        default=None,
        description="The smallest |A - B| the family's corrected test detects with power "
        "`detectable_power`: (z(1 - alpha / 2m) + z(power)) x difference_se (normal "
        "approximation).",
    )
    detectable_power: float | None = None
    same_test_as: str = Field(
        default="",
        description="The label of an earlier measure in the family with the same values and "
        "test on these models (the bias score and StereoSet's `ss`): one finding, counted "
        "once in the correction and in every count (4.0).",
    )
    note: str = ""
