"""`AuditResult`: the whole of one results.json, every section and its records."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import Field, PrivateAttr

from audit.cards import PluginCard, PluginKind
from audit.results.extrinsic import ExtrinsicRecord
from audit.results.gates import Gate, GateVerdict
from audit.results.lm_quality import LmQualitySection
from audit.results.measurements import Measurement
from audit.results.precision import PrecisionCheck
from audit.results.record import Record
from audit.results.run import DatasetRecord, Environment, ModelRecord, SkippedUnit, UnitRecord
from audit.results.seat import SeatSection
from audit.results.settings import AuditInfo
from audit.results.studies import ComparisonRecord, CorrelationRecord, RobustnessRecord
from audit.results.unknown import ReadNotes
from audit.results.variants import CorpusRecord, MetaEvaluation, VariantRecord
from audit.results.version import RESULTS_VERSION, VersionText


class AuditResult(Record):
    """Everything one `audit run` produced, apart from the per-item scores (scores.parquet)."""

    results_version: VersionText = Field(
        default=str(RESULTS_VERSION), description="MAJOR.MINOR (see `audit.results.version`)."
    )
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
    lm_quality: LmQualitySection | None = Field(
        default=None,
        description="The variants' language-modelling cost: (pseudo-)perplexity on held-out "
        "text against their base's (results_version 3.0); None without variants.",
    )
    seat: SeatSection | None = Field(
        default=None,
        description="SEAT tests per model (results_version 3.0): effect sizes, permutation "
        "p-values and the mean |d| per bias type; None when the spec names no `seat` measure.",
    )
    precision_checks: list[PrecisionCheck] = Field(
        default_factory=list,
        description="Models scored in bfloat16 / float16: a seeded sample re-scored in float32.",
    )
    environment: Environment
    timings: dict[str, float] = Field(description="Seconds per stage.")

    _read_notes: ReadNotes | None = PrivateAttr(default=None)

    @property
    def read_notes(self) -> ReadNotes | None:
        """What reading a newer minor version's file left out (never written to a file);
        None when the file was read whole."""
        return self._read_notes

    def with_read_notes(self, notes: ReadNotes | None) -> AuditResult:
        """A copy that carries `notes` (see `read_notes`)."""
        copy = self.model_copy()
        copy._read_notes = notes
        return copy

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
        """Write results.json in place (for tests and tools). `audit run` writes through
        `audit.results_io.write_results`, atomically: this package imports nothing of the
        tool to do so."""
        path.write_text(self.model_dump_json(indent=2))
