"""`results.json`: the typed, versioned contract between computing and rendering.

Everything a report, the gates and `audit compare` need is here: what ran (audit name,
owner, seed, alpha, bootstrap settings), the gates and their verdicts, and a snapshot of
the card and roles of every plug-in used. Readers import this module, `audit.ids` and
`audit.cards` only: no registry, no spec package, no torch. Read files with
`audit.results_io.read_results`, which checks `results_version` and migrates old files.

`measurements` is a flat list, so `pandas.json_normalize` of it gives a table (plug-in
ids flatten to `scorer.name`, `scorer.label`, `measure.name`, ...).
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from audit.cards import PluginCard, PluginKind
from audit.extrinsic.records import ExtrinsicRecord
from audit.ids import PluginId
from audit.stats.records import ComparisonRecord, CorrelationRecord, RobustnessRecord
from audit.variants.records import CorpusRecord, MetaEvaluation, VariantRecord

#: The version this code writes. Version 1 (before typed plug-in ids) is migrated on read.
RESULTS_VERSION = 2

Verdict = Literal["PASS", "FAIL", "INCONCLUSIVE"]


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MeasureValue(Record):
    """One value of a measure for one group (`all`, a bias type or a target group), as a
    measure computes it.

    `status` is `undefined` (with `value` None and the reason in `note`) whenever the
    measure has no defined value: zero variance, one item, all ties, NaN scores, ...
    """

    group: str = Field(default="all", description="'all', a bias type or a target group.")
    value: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    n: int
    p_value: float | None = None
    status: Literal["ok", "undefined"] = "ok"
    note: str = ""
    details: dict[str, Any] = Field(default_factory=dict)


class Measurement(MeasureValue):
    """A measure's value placed in the audit: which model, dataset, scorer and measure."""

    model: str
    dataset: str
    scorer: PluginId
    measure: PluginId


class ModelRecord(Record):
    """A model as audited: where it came from and what exactly it was."""

    id: str
    source: str
    model_type: Literal["masked", "causal"]
    fingerprint: str
    n_parameters: int | None = None
    device: str = "cpu"
    precision: str = "float32"


class DatasetRecord(Record):
    """A dataset as read: file, checksum and an account of every row."""

    name: str
    shape: Literal["pairs", "labelled"]
    source: str
    sha256: str
    rows_read: int
    rows_kept: int
    skipped: dict[str, int] = Field(default_factory=dict)
    filtered: dict[str, int] = Field(default_factory=dict)
    groups: dict[str, int] = Field(
        default_factory=dict, description="Items per bias type (pairs) or target group."
    )


class UnitRecord(Record):
    """One scoring unit (model x dataset x scorer) and how it ran."""

    model: str
    dataset: str
    scorer: PluginId
    sentences: int
    computed: int = Field(description="Cache entries computed in this run.")
    cached: int = Field(description="Cache entries reused from earlier runs.")
    corrupt: int = Field(default=0, description="Cache entries found corrupt and recomputed.")
    seconds: float


class SkippedUnit(Record):
    """A combination the plan left out, and why."""

    model: str
    dataset: str
    scorer: PluginId
    reason: str


class Environment(Record):
    python: str
    platform: str
    device: str
    packages: dict[str, str]


class BootstrapSettings(Record):
    """How the confidence intervals were drawn."""

    resamples: int = Field(description="Bootstrap resamples per interval; 0 = no intervals.")
    method: Literal["percentile"] = "percentile"
    level: float = Field(description="Confidence level, 1 - alpha.")


class RobustnessSettings(Record):
    """The subsampling study the spec asked for (Liu 2024)."""

    rates: list[float]
    repeats: int
    agreement: float
    seed: int | None = Field(default=None, description="None: the audit's seed.")


class AuditInfo(Record):
    """What was audited, by whom, and with which statistical settings."""

    name: str
    owner: str | None = None
    description: str = ""
    spec_path: str
    spec_sha256: str
    seed: int
    alpha: float
    bootstrap: BootstrapSettings
    robustness: RobustnessSettings | None = Field(
        default=None, description="The subsampling study asked for; None when not asked."
    )
    report_formats: list[Literal["html", "pdf"]] = Field(
        default_factory=lambda: list[Literal["html", "pdf"]](["html", "pdf"]),
        description="Report files `audit run` writes (and `audit render` redraws).",
    )


class Gate(Record):
    """A release gate as the spec gives it (see `audit.gates`). `measure` and `scorer`
    match a plug-in id by its name (any options) or by its exact label."""

    measure: str
    dataset: str
    model: str | None = None
    scorer: str | None = None
    group: str = "all"
    low: float | None = None
    high: float | None = None

    @classmethod
    def of(
        cls,
        *,
        within: Sequence[float] | None = None,
        min: float | None = None,
        max: float | None = None,
        **where: Any,
    ) -> Gate:
        """A gate as a spec writes it (`within: [low, high]`, `min`, `max`), its band
        resolved: `within` narrowed by `min` and `max`, None for an open side."""
        low = within[0] if within is not None else None
        high = within[1] if within is not None else None
        if min is not None:
            low = min if low is None else builtins.max(low, min)
        if max is not None:
            high = max if high is None else builtins.min(high, max)
        return cls(**where, low=low, high=high)


class GateVerdict(Record):
    """One gate judged on one measurement (a gate with `group: '*'` or no model gives several)."""

    gate_index: int
    measure: PluginId
    dataset: str
    model: str | None
    scorer: PluginId | None
    group: str
    low: float | None
    high: float | None
    value: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    verdict: Verdict
    reason: str


class PrecisionCheck(Record):
    """What a reduced precision (a model's `dtype: bfloat16 | float16`) changed on a seeded
    sample of one dataset's items, scored again in float32 (`audit/precision_check.py`)."""

    model: str
    dataset: str
    scorer: PluginId
    dtype: str = Field(description="The reduced dtype the run scored in, e.g. 'bfloat16'.")
    precision: str = Field(description="The run's precision, e.g. 'cuda/bfloat16'.")
    reference: str = Field(description="The float32 precision checked against.")
    seed: int = Field(description="Seed of the sample (the same items for every model).")
    items: int = Field(description="Items checked (the sample, at most the dataset).")
    verdicts: int = Field(description="Item verdicts compared (pairs: st vs at); 0 if none.")
    flipped: int | None = Field(
        description="Verdicts that differ from float32's; None when the items have no verdict "
        "of their own (labelled statements)."
    )
    max_abs_diff: float | None = Field(
        description="Largest |score - float32 score| over every side; None if no score is finite."
    )
    max_diff_item: str | None = Field(default=None, description="The item where it occurs.")


class AuditResult(Record):
    """Everything one `audit run` produced, apart from the per-item scores (scores.parquet)."""

    results_version: int = RESULTS_VERSION
    tool_version: str
    created_at: datetime
    audit: AuditInfo
    spec: dict[str, Any] = Field(
        description="The spec as given (parsed YAML), for provenance; readers use `audit`."
    )
    plugins: list[PluginCard] = Field(
        default_factory=list, description="Card and roles of every plug-in this run used."
    )
    models: list[ModelRecord]
    datasets: list[DatasetRecord]
    units: list[UnitRecord]
    skipped_units: list[SkippedUnit] = Field(default_factory=list)
    measurements: list[Measurement]
    gates: list[Gate] = Field(default_factory=list)
    gate_verdicts: list[GateVerdict] = Field(default_factory=list)
    robustness: list[RobustnessRecord] = Field(
        default_factory=list, description="Subsampling study per measure x rate (if asked)."
    )
    correlations: list[CorrelationRecord] = Field(
        default_factory=list, description="Correlation of measures across models."
    )
    comparisons: list[ComparisonRecord] = Field(
        default_factory=list,
        description="Paired comparison of every two models scored alike on the same items.",
    )
    variants: list[VariantRecord] = Field(
        default_factory=list,
        description="Trained variants (each also in `models`): method, training, probe.",
    )
    corpora: list[CorpusRecord] = Field(
        default_factory=list, description="Training corpora of the variants (Table 1 counts)."
    )
    meta_evaluations: list[MetaEvaluation] = Field(
        default_factory=list, description="bias_controlled studies: measures ranked by r."
    )
    extrinsic: list[ExtrinsicRecord] = Field(
        default_factory=list,
        description="Extrinsic tasks: one record per (task, model) with the fine-tuning, "
        "its dev check, the bias-over-fine-tuning curve and the task's full result.",
    )
    precision_checks: list[PrecisionCheck] = Field(
        default_factory=list,
        description="Models scored in bfloat16 / float16: a seeded sample re-scored in float32.",
    )
    environment: Environment
    timings: dict[str, float] = Field(description="Seconds per stage.")

    # Convenience shortcuts for readers.
    @property
    def seed(self) -> int:
        return self.audit.seed

    @property
    def alpha(self) -> float:
        return self.audit.alpha

    def card(self, kind: PluginKind, name: str) -> PluginCard | None:
        """The snapshot card of a plug-in this run used, None if it is not there."""
        return next((c for c in self.plugins if c.kind == kind and c.name == name), None)

    def write(self, path: Path) -> None:
        path.write_text(self.model_dump_json(indent=2))
