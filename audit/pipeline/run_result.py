"""The `AuditResult` of a run (results.json), assembled from what its stages gave: the
records that describe what was audited (`audit.pipeline.records`), the units, the
measurements, the studies, the variants', extrinsic, SEAT and language-modelling
sections, the precision checks, the environment, the timings and the gates' verdicts."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from audit import __version__
from audit.environment import describe_environment
from audit.gates import evaluate_gates
from audit.pipeline.records import (
    audit_info,
    dataset_chat_record,
    dataset_record,
    model_records,
    used_plugin_cards,
)
from audit.results import AuditResult

if TYPE_CHECKING:
    from audit.pipeline.audit_plan import AuditPlan
    from audit.pipeline.variant_results import VariantResults
    from audit.pipeline.worker import RunModels
    from audit.results import (
        ExtrinsicRecord,
        LmQualitySection,
        Measurement,
        PrecisionCheck,
        SeatSection,
        UnitRecord,
    )
    from audit.studies import Studies


@dataclass(frozen=True)
class RunFindings:
    """What the stages of a run gave for results.json, besides the studies and the
    variants' records."""

    units: list[UnitRecord]
    precision_checks: list[PrecisionCheck]
    extrinsic: list[ExtrinsicRecord]
    seat: SeatSection | None
    measurements: list[Measurement]
    lm_quality: LmQualitySection | None


def assemble_result(
    plan: AuditPlan,
    models: RunModels,
    found: RunFindings,
    studies: Studies,
    variants: VariantResults,
    *,
    timings: dict[str, float],
    created_at: datetime,
) -> AuditResult:
    """The run's results, with each gate's verdict judged on them."""
    loaded = plan.loaded
    spec = loaded.spec
    result = AuditResult(
        tool_version=__version__,
        created_at=created_at,
        audit=audit_info(loaded),
        spec=loaded.raw,
        plugins=used_plugin_cards(plan),
        models=model_records(plan, models),
        datasets=[
            dataset_record(plan.datasets[d.name], dataset_chat_record(d, models))
            for d in spec.datasets
        ],
        units=found.units,
        skipped_units=plan.scoring.skipped,
        measurements=found.measurements,
        gates=[gate.to_gate() for gate in spec.gates],
        robustness=studies.robustness,
        correlations=studies.correlations,
        comparisons=studies.comparisons,
        variants=variants.variants,
        corpora=variants.corpora,
        meta_evaluations=variants.meta_evaluations,
        extrinsic=found.extrinsic,
        lm_quality=found.lm_quality,
        seat=found.seat,
        precision_checks=found.precision_checks,
        environment=describe_environment(", ".join(sorted({m.device for _, m in models.items()}))),
        timings={k: round(v, 3) for k, v in timings.items()},
    )
    return result.model_copy(update={"gate_verdicts": evaluate_gates(result)})
