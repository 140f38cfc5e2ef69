"""Pydantic models of an audit spec (`spec_version: 1`). Every field is documented here or
in the module that declares it: `datasets:` in `dataset_spec.py`, the studies' settings in
`study_settings.py`, models in `audit.models.sources`, variants and extrinsic tasks in their
packages' `settings`; this module gathers them into `AuditSpec`.

Validation that needs the plug-in registries (scorer / measure names and their options,
dataset names and filters) lives in `audit.spec.checks`, so these models stay plain data.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

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
from audit.spec.dataset_spec import ColumnMap, DatasetSpec
from audit.spec.problems import format_number
from audit.spec.study_settings import ComparisonSpec, CorrelationSpec, RobustnessSpec, SamplingRate
from audit.variants.settings import CorpusSpec, LoraSpec, TrainingSpec, VariantSpec

__all__ = [
    "ID_PATTERN",
    "ColumnMap",
    "ComparisonSpec",
    "CorpusSpec",
    "CorrelationSpec",
    "DatasetSpec",
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
    "RobustnessSpec",
    "SamplingRate",
    "Strict",
    "TrainingSpec",
    "VariantSpec",
]


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
                {
                    "got": f"[{format_number(value[0])}, {format_number(value[1])}]",
                    "expected": "low <= high",
                },
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
                {
                    "got": f"min {format_number(self.min)}, max {format_number(self.max)}",
                    "expected": "min <= max",
                },
            )
        return self

    def to_gate(self) -> Gate:
        """The gate as results.json records it (band resolved)."""
        return Gate.of(**self.model_dump())


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
