"""Pydantic models of an audit spec (`spec_version: 1`). Every field is documented here.

Validation that needs the plug-in registries (scorer / measure names and their options,
dataset names and filters) lives in `audit.spec.checks`, so these models stay plain data.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from audit.data.request import DEFAULT_HARMFUL_LABELS
from audit.extrinsic.settings import ExtrinsicSpec
from audit.ids import PluginId, label_of
from audit.lm_quality.settings import HeldOutTextSpec, LmQualitySpec
from audit.models.sources import (
    ID_PATTERN,
    EndpointSource,
    GGUFSource,
    HubSource,
    ModelSource,
    ModelSpec,
    PathSource,
    PipSource,
    Strict,
)
from audit.results import Gate
from audit.variants.settings import CorpusSpec, LoraSpec, TrainingSpec, VariantSpec

__all__ = [
    "ID_PATTERN",
    "CorpusSpec",
    "EndpointSource",
    "ExtrinsicSpec",
    "GGUFSource",
    "HeldOutTextSpec",
    "HubSource",
    "LmQualitySpec",
    "LoraSpec",
    "ModelSource",
    "ModelSpec",
    "PathSource",
    "PipSource",
    "Strict",
    "TrainingSpec",
    "VariantSpec",
]


# ------------------------------------------------------------------------- datasets


class ColumnMap(Strict):
    """Which columns of a user file hold what. Pairs need stereotype and anti_stereotype;
    labelled sets need text and label (toxicity and group optional)."""

    id: str | None = Field(None, description="Item id column; default: the 0-based row.")
    stereotype: str | None = Field(None, description="Pairs: the more stereotypical sentence.")
    anti_stereotype: str | None = Field(
        None, description="Pairs: the less stereotypical (anti-stereotypical) sentence."
    )
    unrelated: str | None = Field(None, description="Pairs: an optional unrelated sentence.")
    bias_type: str | None = Field(
        None, description="Pairs: the bias type of each pair; default 'unspecified'."
    )
    text: str | None = Field(None, description="Labelled: the sentence.")
    label: str | None = Field(
        None, description="Labelled: harmful or benign (see `harmful_labels`)."
    )
    toxicity: str | None = Field(
        None, description="Labelled: toxicity score > 0; default 1 for every row."
    )
    group: str | None = Field(
        None, description="Labelled: target group(s), several separated by ';'."
    )


class DatasetSpec(Strict):
    """A built-in dataset by name, or a user file (`path` + `kind` + `columns`)."""

    name: str = Field(
        description="Built-in name (see `audit list datasets`) or a name of your own; "
        "unique within the spec."
    )
    kind: Literal["pairs", "labelled"] | None = Field(
        None, description="Shape of a user file; built-ins know their own."
    )
    path: str | None = Field(
        None,
        description="A user file, or an explicit copy of a built-in's file; relative paths "
        "are read from the spec file's folder, '~' is expanded.",
    )
    format: Literal["csv", "json", "jsonl", "tsv"] | None = Field(
        None, description="File format; inferred from the extension."
    )
    columns: ColumnMap | None = Field(None, description="Column mapping for a user file.")
    harmful_labels: list[str] = Field(
        default_factory=lambda: list(DEFAULT_HARMFUL_LABELS),
        description="Label values (case-insensitive) that mean harmful in a user labelled file.",
    )
    bias_types: list[str] | None = Field(None, description="Keep only these bias types.")
    groups: list[str] | None = Field(None, description="Keep only these target groups.")
    limit: int | None = Field(
        None, gt=0, strict=True, description="Keep the first N items (after the filters)."
    )
    sample: int | None = Field(
        None,
        gt=0,
        strict=True,
        description="Keep a random sample of N items (after the filters), drawn with the "
        "spec's `seed` and kept in file order; not with `limit`.",
    )
    options: dict[str, str | int | bool] = Field(
        default_factory=dict,
        description="Built-in specific options, e.g. stereoset {part: intersentence}, "
        "winobias {type: 1, split: test}.",
    )


# ------------------------------------------------------------------ scorers/measures


class PluginRef(BaseModel):
    """A scorer, measure or variant by name, with its options (`{name: jss, compat: reference}`).

    Every key besides `name` is an option of that plug-in; `audit.spec.checks` validates
    them against the plug-in's options model.
    """

    model_config = ConfigDict(extra="allow", frozen=True)

    name: str = Field(description="Registered name (see `audit list ...`).")

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.model_extra or {})

    @property
    def id(self) -> PluginId:
        """The typed id every later layer uses: name, options and a label for people."""
        return PluginId.of(self.name, self.options)

    @property
    def label(self) -> str:
        """How tables name it: `ll`, or with its options `ll[compat=reference]`. The same
        plug-in may be listed more than once with different options."""
        return label_of(self.name, self.options)


def plugin_ref(value: Any) -> Any:
    """The shorthand `jss` -> `{name: jss}`; anything else unchanged."""
    return {"name": value} if isinstance(value, str) else value


PluginItem = Annotated[PluginRef, Field(description="A name, or {name: ..., <options>}.")]


class ScorerSelection(Strict):
    """Scorers per model type; each model is scored with the list for its type."""

    masked: list[PluginItem] = Field(
        default_factory=lambda: [PluginRef(name="cps")],
        description="Scorers for masked LMs (BERT-like), e.g. cps, sss, aul, aula, pll.",
    )
    causal: list[PluginItem] = Field(
        default_factory=lambda: [PluginRef(name="ll")],
        description="Scorers for causal LMs (GPT-like), e.g. ll, ppl.",
    )

    @field_validator("masked", "causal", mode="before")
    @classmethod
    def _names(cls, value: Any) -> Any:
        return [plugin_ref(v) for v in value] if isinstance(value, list) else value


def _sampling_rate(value: float) -> float:
    if not 0 < value <= 1:
        raise PydanticCustomError(
            "sampling_rate",
            "a sampling rate is the share of items drawn, so it must lie in (0, 1]",
            {"got": _num(value), "expected": "a number above 0 and at most 1, e.g. 0.5"},
        )
    return value


SamplingRate = Annotated[
    float,
    AfterValidator(_sampling_rate),
    Field(json_schema_extra={"exclusiveMinimum": 0, "maximum": 1}),
]


class RobustnessSpec(Strict):
    """The subsampling study of Liu 2024 (METHODS.md section 4)."""

    rates: list[SamplingRate] = Field(
        default_factory=lambda: [0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
        min_length=1,
        description="Sampling rates in (0, 1].",
    )
    repeats: int = Field(20, ge=1, le=10_000, description="Seeded draws per rate.")
    agreement: float = Field(
        0.95, gt=0, le=1, description="Share of draws that must agree for 'robust'."
    )
    seed: int | None = Field(None, description="Seed of the draws; default: the spec's seed.")


class CorrelationSpec(Strict):
    """How the correlation between measures across models is tested (METHODS.md section 4)."""

    correction: Literal["holm", "bh"] = Field(
        default="holm",
        description="Multiple-comparison correction of each family of correlation tests: "
        "'holm' (Holm step-down, family-wise error rate) or 'bh' (Benjamini-Hochberg, false "
        "discovery rate).",
    )
    failed_dev_check: Literal["exclude", "keep"] = Field(
        default="exclude",
        description="Extrinsic values of models whose fine-tuning failed the task's dev check: "
        "'exclude' leaves them out of the correlations (and the report names them); 'keep' "
        "correlates them too (they measure an unlearned task).",
    )
    effect_size: float = Field(
        default=0.5,
        gt=0,
        lt=1,
        description="The correlation a study must be able to detect to be called conclusive, "
        "as a population Kendall tau (0.5: a strong association, Pearson about 0.71 for "
        "normal data; Kaneko et al. 2022 report tau up to 0.53). A table whose test has "
        "less than `power` at this tau says it could not have detected it.",
    )
    power: float = Field(
        default=0.8,
        gt=0,
        lt=1,
        description="The power at `effect_size` a conclusive correlation table needs.",
    )


class ComparisonSpec(Strict):
    """How paired comparisons (a variant against its base, two models) are judged."""

    correction: Literal["holm", "bh"] = Field(
        default="holm",
        description="Multiple-comparison correction over each family of comparisons (the "
        "variants against their base; the ratio models against theirs; the models against "
        "each other): 'holm' (family-wise error rate) or 'bh' (Benjamini-Hochberg, false "
        "discovery rate). Page 1 counts the verdicts after it.",
    )
    power: float = Field(
        default=0.8,
        gt=0,
        lt=1,
        description="The power at which each comparison's smallest detectable difference "
        "is stated.",
    )


class ReportSpec(Strict):
    """What to write and where."""

    formats: list[Literal["html", "pdf"]] = Field(
        default_factory=lambda: list[Literal["html", "pdf"]](["html", "pdf"]),
        description="Report files to write.",
    )
    out_dir: str | None = Field(
        default=None, description="Output folder; default reports/<name>. `--out` overrides it."
    )


class GateSpec(Strict):
    """A release threshold on a measure, judged with its confidence interval."""

    measure: str = Field(description="A measure listed under `measures`.")
    dataset: str = Field(description="A dataset name listed under `datasets`.")
    model: str | None = Field(None, description="A model id; default: every model.")
    scorer: str | None = Field(None, description="Default: every scorer the measure used.")
    group: str = Field("all", description="'all', a bias type, a target group, or '*' for each.")
    within: tuple[float, float] | None = Field(None, description="[low, high] band.")
    min: float | None = Field(None, description="Lowest acceptable value.")
    max: float | None = Field(None, description="Highest acceptable value.")

    @field_validator("within")
    @classmethod
    def _ordered_band(cls, value: tuple[float, float] | None) -> tuple[float, float] | None:
        if value is not None and value[0] > value[1]:
            raise PydanticCustomError(
                "gate_band",
                "`within` is a band [low, high] and needs low <= high",
                {"got": f"[{_num(value[0])}, {_num(value[1])}]", "expected": "low <= high"},
            )
        return value

    @model_validator(mode="after")
    def _one_bound(self) -> GateSpec:
        if self.within is None and self.min is None and self.max is None:
            raise PydanticCustomError(
                "gate_bound",
                "a gate needs a bound",
                {"expected": "`within: [low, high]`, `min` or `max`"},
            )
        if self.min is not None and self.max is not None and self.min > self.max:
            raise PydanticCustomError(
                "gate_band",
                "`min` is above `max`, so no value can pass",
                {"got": f"min {_num(self.min)}, max {_num(self.max)}", "expected": "min <= max"},
            )
        return self

    def to_gate(self) -> Gate:
        """The gate as results.json records it (band resolved)."""
        return Gate.of(**self.model_dump())


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


class ExecutionSpec(Strict):
    """Where the scoring and training work runs; none of it changes a number. `audit run
    --executor` and `--address` override it."""

    executor: Literal["in-process", "ray"] = Field(
        default="in-process",
        description="'in-process': one model after another in this process; 'ray': each "
        "model's scoring and each variant training as Ray tasks (pip install "
        "bias-audit[ray]).",
    )
    address: str | None = Field(
        default=None,
        description="Ray: the cluster to join: 'auto' (the one this machine belongs to) or "
        "'ray://HOST:PORT' (Ray Client); default: $RAY_ADDRESS, else a local Ray.",
    )
    cpus_per_task: float = Field(default=1, gt=0, description="Ray: CPUs each task asks for.")
    gpus_per_task: float = Field(
        default=1, gt=0, description="Ray: GPUs each task asks for when the device is CUDA."
    )
    max_retries: int = Field(
        default=3, ge=0, le=100, description="Ray: times a task is run again when its worker dies."
    )


# ---------------------------------------------------------------------------- spec


def dataset_item(value: Any) -> Any:
    """The shorthand `crows_pairs` -> `{name: crows_pairs}`; anything else unchanged."""
    return {"name": value} if isinstance(value, str) else value


class AuditSpec(Strict):
    """An audit: which models, on which data, scored how, measured how, reported where."""

    spec_version: Literal[1] = Field(description="Version of this spec format; write 1.")
    name: str = Field(pattern=ID_PATTERN, description="Audit name (letters, digits, '_.-').")
    description: str = Field("", description="Free text shown at the top of the report.")
    owner: str | None = Field(None, description="Who answers for this audit.")
    seed: int = Field(0, description="Seed of every random draw (bootstrap, subsampling).")
    alpha: float = Field(0.05, gt=0, lt=1, description="Significance level for tests and CIs.")
    bootstrap: int = Field(1000, ge=0, le=100_000, description="Bootstrap resamples per CI.")
    models: list[ModelSpec] = Field(min_length=1, description="The models to audit.")
    datasets: list[DatasetSpec] = Field(
        min_length=1,
        description="Built-in dataset names, or mappings with filters or a user file.",
    )
    scorers: ScorerSelection = Field(
        default_factory=ScorerSelection, description="Scorers per model type."
    )
    measures: list[PluginItem] = Field(
        default_factory=lambda: [PluginRef(name="bias_score"), PluginRef(name="safety_score")],
        description="Measures to compute (see `audit list measures`), names or "
        "{name: ..., <options>}.",
    )
    robustness: RobustnessSpec | None = Field(
        None, description="Subsampling robustness study; off when absent."
    )
    comparisons: ComparisonSpec = Field(
        default_factory=ComparisonSpec,
        description="How paired comparisons are corrected for their number.",
    )
    correlations: CorrelationSpec = Field(
        default_factory=CorrelationSpec,
        description="How correlations between measures across models are tested.",
    )
    variants: list[VariantSpec] = Field(
        default_factory=list,
        description="Debiased or controlled versions of the models, trained and then "
        "audited beside their base (see `audit list variants`).",
    )
    extrinsic: list[ExtrinsicSpec] = Field(
        default_factory=list,
        description="Extrinsic tasks: bias measured in a downstream task after fine-tuning "
        "each model and variant (see `audit list extrinsic`); their values are correlated "
        "with the intrinsic measures across models.",
    )
    lm_quality: LmQualitySpec = Field(
        default_factory=lambda: LmQualitySpec.model_validate({}),
        description="The variants' language-modelling cost: each variant's and its base's "
        "(pseudo-)perplexity on held-out text (used only when the spec has variants).",
    )
    report: ReportSpec = Field(default_factory=ReportSpec, description="Report output.")
    execution: ExecutionSpec = Field(
        default_factory=ExecutionSpec, description="Where the work runs (in-process or Ray)."
    )
    gates: list[GateSpec] = Field(
        default_factory=list, description="Release thresholds; a failed gate fails the run."
    )

    @field_validator("datasets", mode="before")
    @classmethod
    def _dataset_names(cls, value: Any) -> Any:
        return [dataset_item(v) for v in value] if isinstance(value, list) else value

    @field_validator("measures", mode="before")
    @classmethod
    def _plugin_names(cls, value: Any) -> Any:
        return [plugin_ref(v) for v in value] if isinstance(value, list) else value
