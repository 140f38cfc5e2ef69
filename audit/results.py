"""`results.json`: the typed, versioned contract between computing and rendering.

Everything a report shows comes from here; `audit render results.json` redraws a report
without scoring again. `measurements` is a flat list, so `pandas.json_normalize` of it
gives a table.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from audit.stats.records import ComparisonRecord, CorrelationRecord, RobustnessRecord

RESULTS_VERSION = 1


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Measurement(Record):
    """One value of one measure for one model x dataset x scorer x group."""

    model: str
    dataset: str
    scorer: str
    measure: str
    group: str = Field(description="'all', a bias type or a target group.")
    value: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    n: int
    p_value: float | None = None
    status: Literal["ok", "undefined"] = "ok"
    note: str = ""
    details: dict[str, Any] = Field(default_factory=dict)


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
    scorer: str
    options: dict[str, Any] = Field(default_factory=dict)
    sentences: int
    computed: int = Field(description="Cache entries computed in this run.")
    cached: int = Field(description="Cache entries reused from earlier runs.")
    corrupt: int = Field(default=0, description="Cache entries found corrupt and recomputed.")
    seconds: float


class SkippedUnit(Record):
    """A combination the plan left out, and why."""

    model: str
    dataset: str
    scorer: str
    reason: str


class Environment(Record):
    python: str
    platform: str
    device: str
    packages: dict[str, str]


class AuditResult(Record):
    """Everything one `audit run` produced, apart from the per-item scores (scores.parquet)."""

    results_version: int = RESULTS_VERSION
    tool_version: str
    created_at: datetime
    spec: dict[str, Any] = Field(description="The spec as given (parsed YAML).")
    spec_path: str
    spec_sha256: str
    seed: int
    alpha: float
    models: list[ModelRecord]
    datasets: list[DatasetRecord]
    units: list[UnitRecord]
    skipped_units: list[SkippedUnit] = Field(default_factory=list)
    measurements: list[Measurement]
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
    environment: Environment
    timings: dict[str, float] = Field(description="Seconds per stage.")

    def write(self, path: Path) -> None:
        path.write_text(self.model_dump_json(indent=2))

    @classmethod
    def read(cls, path: Path) -> AuditResult:
        return cls.model_validate_json(path.read_text())
