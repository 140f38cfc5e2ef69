"""`results.json`: the typed, versioned contract between computing and rendering.

Everything a report, the gates and `audit compare` need is here: what ran (audit name,
owner, seed, alpha, bootstrap settings), the gates and their verdicts, a snapshot of the
card and roles of every plug-in used, and every record the run's studies, variants and
extrinsic tasks wrote. This package is the bottom of the tool: it imports pydantic,
`audit.ids` and `audit.cards` and nothing else, so readers need no registry, no spec
package, no torch. Read files with `audit.results_io.read_results`, which checks
`results_version`, migrates old files and reads newer minor versions.

Versions (`audit.results.version`): `results_version` is "MAJOR.MINOR", written "4.2"
now; a bare integer from before this scheme is MAJOR.0 (2 = 2.0, 1 = 1.0).

- An added field or section raises MINOR. Reading a file of a newer MINOR leaves out what
  this version does not know, at any depth, and notes it (`audit.results.unknown`,
  `AuditResult.read_notes`): `audit render` prints a warning per part and the report says
  what it could not show. Within one version every record forbids unknown keys.
- Anything an older reader cannot skip raises MAJOR: a newer MAJOR is refused (exit 2),
  an older one is migrated (`audit/migrations/`).

`measurements` is a flat list, so `pandas.json_normalize` of it gives a table (plug-in
ids flatten to `scorer.name`, `scorer.label`, `measure.name`, ...).

Modules, one job each: `record` (the strict base), `version`, `measurements`, `run`
(models, datasets, units, environment), `settings` (`AuditInfo`), `gates`, `precision`,
`studies` (robustness, correlation, comparison), `detection` (what a correlation
test could have detected), `comparison_verdict` (what a paired
comparison says moved), `variants` (training, probe, corpora, meta-evaluation),
`finetune` and `extrinsic` (the extrinsic tasks), `lm_quality` (the variants'
language-modelling cost), `seat` (the sentence encoder association tests), `result`
(`AuditResult`) and `unknown` (reading a newer minor version).
"""

from audit.results.comparison_verdict import (
    COMPARISON_VERDICTS,
    MOVED,
    ComparisonVerdict,
    CorrectedVerdict,
    judge_comparison,
)
from audit.results.detection import DetectionLimit, PowerAt
from audit.results.extrinsic import (
    ChosenCheckpoint,
    CurvePoint,
    DevCheck,
    ExtrinsicRecord,
    ExtrinsicSeed,
    NliBiasGroup,
    NliBiasResult,
    PctFemaleCorrelation,
    StsBiasOccupation,
    StsBiasResult,
    ThresholdShare,
    TprGapOccupation,
    TprGapResult,
)
from audit.results.finetune import DevEvaluation, FineTuneSummary
from audit.results.gates import Gate, GateVerdict, Verdict
from audit.results.lm_quality import (
    HeldOutTextRecord,
    LmQualityRecord,
    LmQualitySection,
    PerplexityRecord,
)
from audit.results.measurements import Measurement, MeasureValue
from audit.results.precision import PrecisionCheck
from audit.results.record import Record
from audit.results.result import AuditResult
from audit.results.run import (
    ChatTemplateRecord,
    DatasetChatRecord,
    DatasetRecord,
    EndpointRecord,
    Environment,
    ModelRecord,
    SkippedUnit,
    UnitRecord,
)
from audit.results.seat import SeatBiasTypeRecord, SeatSection, SeatSkipRecord, SeatTestRecord
from audit.results.settings import (
    AuditInfo,
    BootstrapSettings,
    ComparisonSettings,
    CorrelationSettings,
    RobustnessSettings,
)
from audit.results.studies import (
    ComparisonRecord,
    CorrelationRecord,
    ExcludedModel,
    MeasureSeries,
    ModelDrawSummary,
    RobustnessRecord,
)
from audit.results.unknown import ReadNotes, UnreadPart, strip_unknown
from audit.results.variants import (
    ControlCheck,
    CorpusRecord,
    CorrelationWithRatio,
    LossPoint,
    MetaEvaluation,
    ProbeOccupation,
    ProbeRecord,
    TrainingSummary,
    VariantRecord,
)
from audit.results.version import RESULTS_VERSION, ResultsVersion

__all__ = [
    "COMPARISON_VERDICTS",
    "MOVED",
    "RESULTS_VERSION",
    "AuditInfo",
    "AuditResult",
    "BootstrapSettings",
    "ChatTemplateRecord",
    "ChosenCheckpoint",
    "ComparisonRecord",
    "ComparisonSettings",
    "ComparisonVerdict",
    "ControlCheck",
    "CorpusRecord",
    "CorrectedVerdict",
    "CorrelationRecord",
    "CorrelationSettings",
    "CorrelationWithRatio",
    "CurvePoint",
    "DatasetChatRecord",
    "DatasetRecord",
    "DetectionLimit",
    "DevCheck",
    "DevEvaluation",
    "EndpointRecord",
    "Environment",
    "ExcludedModel",
    "ExtrinsicRecord",
    "ExtrinsicSeed",
    "FineTuneSummary",
    "Gate",
    "GateVerdict",
    "HeldOutTextRecord",
    "LmQualityRecord",
    "LmQualitySection",
    "LossPoint",
    "MeasureSeries",
    "MeasureValue",
    "Measurement",
    "MetaEvaluation",
    "ModelDrawSummary",
    "ModelRecord",
    "NliBiasGroup",
    "NliBiasResult",
    "PctFemaleCorrelation",
    "PerplexityRecord",
    "PowerAt",
    "PrecisionCheck",
    "ProbeOccupation",
    "ProbeRecord",
    "ReadNotes",
    "Record",
    "ResultsVersion",
    "RobustnessRecord",
    "RobustnessSettings",
    "SeatBiasTypeRecord",
    "SeatSection",
    "SeatSkipRecord",
    "SeatTestRecord",
    "SkippedUnit",
    "StsBiasOccupation",
    "StsBiasResult",
    "ThresholdShare",
    "TprGapOccupation",
    "TprGapResult",
    "TrainingSummary",
    "UnitRecord",
    "UnreadPart",
    "VariantRecord",
    "Verdict",
    "judge_comparison",
    "strip_unknown",
]
