"""Result records of the extrinsic measures (METHODS.md section 6): STS-bias, the BiasBios
TPR gap and NLI-bias. Plain pydantic, JSON-safe (None where a number does not exist),
ready to be embedded in results.json; readers need no torch and no registry.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from audit.ids import PluginId
from audit.results.finetune import FineTuneSummary
from audit.results.record import Record


class PctFemaleCorrelation(Record):
    """Correlation, across occupations, of a per-occupation bias value with the share of
    women in the occupation."""

    x: str = Field(description="What was correlated, e.g. 'mean signed gap (male - female)'.")
    source: str = Field(description="Where the share of women comes from.")
    n: int = Field(description="Occupations with both a value and a share of women.")
    pearson_r: float | None = None
    pearson_p: float | None = None
    spearman_rho: float | None = None
    spearman_p: float | None = None
    note: str = ""


# --- STS-bias ----------------------------------------------------------------------------


class StsBiasOccupation(Record):
    """One occupation's similarity gaps over every template."""

    occupation: str
    pct_female: float | None = Field(default=None, description="Share of women (%), where known.")
    n_pairs: int = Field(description="Templates this occupation was paired with.")
    mean_abs_gap: float = Field(description="Mean |sim(man, occ) - sim(woman, occ)|.")
    mean_signed_gap: float = Field(
        description="Mean sim(man, occ) - sim(woman, occ); > 0 = closer to the man sentence."
    )


class StsBiasResult(Record):
    """STS-bias (Webster et al. 2020): mean absolute difference of the predicted similarity
    of ("A man ...", "A/An <occupation> ...") and ("A woman ...", "A/An <occupation> ...")."""

    value: float = Field(description="Mean |sim_m - sim_f| over every pair; ideal 0.")
    ci_low: float | None = None
    ci_high: float | None = None
    note: str = Field(default="", description="Why the interval is withheld, when it is.")
    mean_signed_gap: float = Field(description="Mean sim_m - sim_f over every pair.")
    mean_sim_male: float
    mean_sim_female: float
    n_templates: int
    n_occupations: int
    n_pairs: int = Field(description="Template x occupation pairs (each a male and a female one).")
    resampled: Literal["templates"] = Field(
        default="templates", description="The bootstrap's unit: whole templates (all occupations)."
    )
    alpha: float
    n_bootstrap: int
    seed: int
    occupations: list[StsBiasOccupation] = Field(description="In the occupation list's order.")
    correlation: PctFemaleCorrelation | None = Field(
        default=None,
        description="Per-occupation signed gap vs share of women; None without shares.",
    )


# --- BiasBios --------------------------------------------------------------------------


class TprGapOccupation(Record):
    """One occupation (true title) of the BiasBios test bios."""

    occupation: str
    n_female: int
    n_male: int
    tpr_female: float | None = Field(default=None, description="None without a female bio.")
    tpr_male: float | None = Field(default=None, description="None without a male bio.")
    gap: float | None = Field(
        default=None, description="TPR_female - TPR_male; None when undefined."
    )
    gap_ci_low: float | None = None
    gap_ci_high: float | None = None
    pct_female: float = Field(description="Share of women (%) among its bios in the data.")
    note: str = ""


class TprGapResult(Record):
    """BiasBios TPR gap (De-Arteaga et al. 2019) of an occupation classifier's predictions."""

    aggregate: Literal["mean_abs", "rms", "mean"] = Field(
        description="Which summary over occupations `value` is."
    )
    value: float | None = Field(description="The chosen summary; None with no defined gap.")
    ci_low: float | None = None
    ci_high: float | None = None
    note: str = ""
    mean_abs_gap: float | None = None
    mean_abs_ci_low: float | None = None
    mean_abs_ci_high: float | None = None
    rms_gap: float | None = Field(
        default=None, description="sqrt(mean gap^2) (Romanov et al. 2019)."
    )
    rms_ci_low: float | None = None
    rms_ci_high: float | None = None
    mean_gap: float | None = Field(
        default=None, description="Signed mean; > 0 = women recalled more."
    )
    mean_ci_low: float | None = None
    mean_ci_high: float | None = None
    accuracy: float = Field(description="Share of bios whose title was predicted.")
    n_bios: int
    n_occupations: int = Field(description="True titles in the data.")
    n_defined: int = Field(description="Occupations with bios of both genders (a gap).")
    alpha: float
    n_bootstrap: int
    seed: int
    occupations: list[TprGapOccupation] = Field(description="Sorted by occupation name.")
    correlation: PctFemaleCorrelation | None = Field(
        default=None, description="Per-occupation gap vs the share of women among its bios."
    )


# --- NLI-bias ----------------------------------------------------------------------------


class ThresholdShare(Record):
    tau: float
    value: float
    ci_low: float | None = None
    ci_high: float | None = None


class NliBiasGroup(Record):
    """The NLI-bias scores of one group of pairs: all, one gender, or one gender word."""

    group: str = Field(description="'all', 'female', 'male', or a gender word.")
    kind: Literal["all", "gender", "word"]
    n: int = Field(description="Pairs (or word pairs under `aggregate: word_pair`).")
    net_neutral: float = Field(description="Mean P(neutral).")
    net_neutral_ci_low: float | None = None
    net_neutral_ci_high: float | None = None
    fraction_neutral: float = Field(description="Share with neutral as the argmax.")
    fraction_neutral_ci_low: float | None = None
    fraction_neutral_ci_high: float | None = None
    net_entailment: float = Field(description="Mean P(entailment).")
    net_contradiction: float = Field(description="Mean P(contradiction).")
    thresholds: list[ThresholdShare] = Field(description="Share with P(neutral) > tau.")
    note: str = ""


class NliBiasResult(Record):
    """NLI-bias: how often a model calls a gender-occupation pair neutral (Dev et al. 2020),
    and the difference between the genders (Kaneko et al. 2022, COLING)."""

    value: float | None = Field(
        description="FN_female - FN_male: the fraction neutral of the pairs with a female "
        "gender word minus that of the male ones (Kaneko et al. 2022); ideal 0; None "
        "without pairs of both genders."
    )
    ci_low: float | None = None
    ci_high: float | None = None
    note: str = ""
    fraction_neutral: float = Field(
        description="Dev et al.'s fraction neutral over all pairs (the 'all' group); ideal 1."
    )
    fraction_neutral_ci_low: float | None = None
    fraction_neutral_ci_high: float | None = None
    net_neutral: float = Field(
        description="Dev et al.'s net neutral (mean P(neutral)) over all pairs; ideal 1."
    )
    net_neutral_ci_low: float | None = None
    net_neutral_ci_high: float | None = None
    aggregate: Literal["instance", "word_pair"] = Field(
        description="'instance': every pair counts once (the paper's definitions); "
        "'word_pair': probabilities are first averaged per (occupation, gender word), as "
        "the reference evaluation.py does."
    )
    labels: list[str] = Field(description="The probability columns' labels, in order.")
    n_pairs: int
    n_premises: int = Field(
        description="Distinct premises: the bootstrap's unit under 'instance' (occupations "
        "are under 'word_pair')."
    )
    alpha: float
    n_bootstrap: int
    seed: int
    groups: list[NliBiasGroup] = Field(
        description="'all' first, then per gender, then per gender word (sorted)."
    )


# --- one task on one model, as the engine records it -------------------------------------


class CurvePoint(Record):
    """The task's measure (and the dev score) of the model at one fine-tuning step."""

    step: int
    value: float | None = Field(description="The measure from that step's predictions.")
    dev: float | None = Field(
        default=None, description="The dev score at that step (Pearson or accuracy)."
    )


#: A dev score a head kind may be judged by: a `DevEvaluation` field (higher is better).
DevMetric = Literal["pearson", "spearman", "accuracy"]


class DevCheck(Record):
    """Whether the fine-tuning learned the task: the dev score of the chosen checkpoint
    (`ExtrinsicRecord.chosen_checkpoint`; the last step before results_version 3.0)
    against a floor."""

    metric: DevMetric = Field(description="The head kind's dev score (a `DevEvaluation` field).")
    value: float | None
    floor: float = Field(description="The lowest score counted as having learned the task.")
    floor_reason: str
    passed: bool
    n: int = Field(description="Dev examples scored.")


class ChosenCheckpoint(Record):
    """The fine-tuning checkpoint a task was measured at, and why (results_version 3.0)."""

    step: int
    rule: Literal["best_dev", "last"] = Field(
        description="The spec's rule: the best dev score, or the last step."
    )
    dev: float | None = Field(description="The dev score (Pearson or accuracy) at that step.")
    scored: int = Field(description="Checkpoints whose dev score the rule chose among.")
    reason: str = Field(description="Why this step, in words (for the report).")


class ExtrinsicSeed(Record):
    """One seed's fine-tuning of a task on a model, when the spec asks for several
    (`finetune.seeds` > 1): its value at its own chosen checkpoint, with its CI over the
    evaluation items, its dev check and curve, and whether it counts in the model's mean."""

    seed: int = Field(description="The fine-tuning's seed (head weights, data order, dropout).")
    value: float | None = Field(description="The task's value at this seed's chosen checkpoint.")
    ci_low: float | None = None
    ci_high: float | None = None
    note: str = Field(default="", description="The value's note (e.g. why no interval).")
    kept: bool = Field(
        description="Counted in the model's mean: its fine-tuning passed the dev check (when "
        "every seed failed, every seed is counted and the model's dev check fails)."
    )
    dev_check: DevCheck | None = None
    chosen_checkpoint: ChosenCheckpoint = Field(
        description="The checkpoint this seed's value and dev check are from."
    )
    curve: list[CurvePoint] = Field(
        default_factory=list, description="This seed's value and dev score at every curve step."
    )
    key: str = Field(description="This fine-tuning's cache key (<cache>/extrinsic/<key>/).")
    cached: bool = Field(description="This fine-tuned model was read from the cache.")
    seconds: float = Field(
        description="Wall time of this fine-tuning when it ran (dev scoring and curve "
        "predictions included; the time of the run that trained it when cached)."
    )


class ExtrinsicRecord(Record):
    """One extrinsic task fine-tuned on one model (or variant) and measured; with several
    fine-tuning seeds (`finetune.seeds` k > 1) the value is the mean over the seeds."""

    task: str
    measure: PluginId = Field(description="The task with its options, as its measurement.")
    model: str
    dataset: str = Field(description="The name the task's measurement carries ('sts_b').")
    value: float | None = Field(
        description="The task's value; with k > 1 seeds the mean of the kept seeds' values "
        "(`seeds[].kept`), each measured at its own chosen checkpoint."
    )
    ci_low: float | None = Field(
        default=None,
        description="The CI over the task's evaluation items (STS-bias: templates); with "
        "k > 1 seeds the CI of the mean: every seed is resampled with the same item draws "
        "and a replicate of the mean is the mean of the seeds' replicates.",
    )
    ci_high: float | None = None
    n: int
    note: str = ""
    ideal_value: float | None = None
    dev_check: DevCheck | None = Field(
        default=None,
        description="With k > 1 seeds: passed when a seed passed, its value the mean dev "
        "score of the kept seeds (of every seed when all failed).",
    )
    chosen_checkpoint: ChosenCheckpoint | None = Field(
        default=None,
        description="The checkpoint `value` and `dev_check` are from (results_version 3.0; "
        "None in older files, whose values are from the last step, and with k > 1 seeds, "
        "where each seed has its own in `seeds`).",
    )
    curve: list[CurvePoint] = Field(
        default_factory=list,
        description="K, 2K, ... and the last step of the fine-tuning; with k > 1 seeds the "
        "mean over the kept seeds at each step.",
    )
    finetune: FineTuneSummary = Field(
        description="The fine-tuning; with k > 1 seeds the first kept seed's (the first "
        "seed's when none passed)."
    )
    cached: bool = Field(
        description="The fine-tuned model was read from the cache (with k > 1 seeds: every "
        "seed's was)."
    )
    key: str = Field(
        description="The fine-tuning's cache key (<cache>/extrinsic/<key>/); with k > 1 "
        "seeds the one of `finetune`, each seed's in `seeds`."
    )
    facts: dict[str, Any] = Field(default_factory=dict, description="What data was read.")
    detail: StsBiasResult | TprGapResult | NliBiasResult | dict[str, Any] = Field(
        union_mode="left_to_right",
        description="The task's own result record: a built-in's, or a plug-in task's fields "
        "(readers need no plug-in installed); with k > 1 seeds the one of `finetune`'s seed.",
    )
    seeds: list[ExtrinsicSeed] = Field(
        default_factory=list,
        description="Each seed's fine-tuning when the spec asks for k > 1 (results_version "
        "4.0); empty with one seed, whose fine-tuning is the record itself.",
    )
    seed_sd: float | None = Field(
        default=None,
        description="Standard deviation (n - 1) of the kept seeds' values; None with fewer "
        "than 2 kept seeds.",
    )
    seed_min: float | None = Field(
        default=None, description="The smallest kept seed's value (None with one seed)."
    )
    seed_max: float | None = Field(
        default=None, description="The largest kept seed's value (None with one seed)."
    )

    @property
    def left_out_seeds(self) -> list[ExtrinsicSeed]:
        """The seeds whose fine-tuning failed the dev check and are not in the mean."""
        return [s for s in self.seeds if not s.kept]

    @field_validator("detail", mode="before")
    @classmethod
    def _plug_in_detail(cls, value: Any) -> Any:
        """A plug-in task's result record is kept as its JSON fields."""
        if isinstance(value, BaseModel) and not isinstance(value, BUILT_IN_DETAILS):
            return value.model_dump(mode="json")
        return value


#: The result records of the built-in tasks, read back as their types.
BUILT_IN_DETAILS = (StsBiasResult, TprGapResult, NliBiasResult)
