"""The run's stages that `audit.engine.run_audit` calls with more than the plan: scoring
every planned unit (the held-out text's with the others), SEAT, the score table written,
the language-modelling cost, the cross-model studies."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from audit.atomic_write import atomic_path
from audit.executor import group_by_model
from audit.pipeline.lm_quality import lm_quality_section
from audit.pipeline.records import study_settings
from audit.pipeline.scoring_queue import queued_units
from audit.pipeline.seat_stage import run_seat_stage
from audit.scoring.cache import ModelIdentity
from audit.scoring.table import unit_frames
from audit.scoring.units import ScoreUnit
from audit.studies import run_studies

if TYPE_CHECKING:
    from pathlib import Path

    import pandas as pd

    from audit.display import Display
    from audit.executor import Executor
    from audit.extrinsic.stage import ExtrinsicOutcome
    from audit.models.prepared import ModelLoader
    from audit.pipeline.audit_plan import AuditPlan
    from audit.pipeline.worker import RunModels, RunWorker
    from audit.results import LmQualitySection, Measurement, SeatSection, UnitRecord
    from audit.scoring.cache import ScoreCache
    from audit.studies import Studies


@dataclass(frozen=True)
class ScoredUnits:
    """The records of the units scored: the spec's, and the held-out text's."""

    units: list[UnitRecord]
    lm_quality: list[UnitRecord]


def score_planned_units(
    plan: AuditPlan, models: RunModels, worker: RunWorker, executor: Executor, display: Display
) -> ScoredUnits:
    """Every planned unit scored where the executor runs work; the held-out text's units
    run with the others, so each model loads once."""
    display.stage("scoring")
    work = group_by_model([*plan.units, *plan.lm_quality_units])
    display.overall(queued_units(work, plan, models))
    ran = executor.run(work, worker)
    lm_units = set(plan.lm_quality_units)
    return ScoredUnits(
        units=[r for r in ran if ScoreUnit(r.model, r.dataset, r.scorer) not in lm_units],
        lm_quality=[r for r in ran if ScoreUnit(r.model, r.dataset, r.scorer) in lm_units],
    )


def seat_section(
    plan: AuditPlan, models: RunModels, loader: ModelLoader, display: Display
) -> SeatSection:
    """The planned SEAT entries on their models (the plan must have some)."""
    assert plan.seat is not None
    spec = plan.loaded.spec
    return run_seat_stage(
        plan.seat,
        models,
        loader,
        cache_dir=plan.settings.cache_dir,
        seed=spec.seed,
        alpha=spec.alpha,
        display=display,
    )


def write_scores(scores: pd.DataFrame, out_dir: Path) -> None:
    """scores.parquet, whole or not at all, before any measure runs."""
    with atomic_path(out_dir / "scores.parquet") as tmp:
        scores.to_parquet(tmp, index=False)


def lm_quality_of(
    plan: AuditPlan, models: RunModels, cache: ScoreCache, units: list[UnitRecord]
) -> LmQualitySection:
    """The variants' language-modelling cost from the held-out text's scored units (the
    plan must have a held-out text)."""
    assert plan.lm_quality is not None
    spec = plan.loaded.spec
    return lm_quality_section(
        plan.lm_quality,
        {
            k: ModelIdentity(m.fingerprint, m.precision, m.chat, m.dataset_chats)
            for k, m in models.items()
        },
        cache,
        units,
        seed=spec.seed,
        n_bootstrap=spec.bootstrap,
        alpha=spec.alpha,
    )


def studies_of(
    plan: AuditPlan,
    models: RunModels,
    scores: pd.DataFrame,
    measurements: list[Measurement],
    extrinsic: ExtrinsicOutcome,
    display: Display,
) -> Studies:
    """The cross-model studies over the measurements and the extrinsic records."""
    return run_studies(
        study_settings(plan, models),
        plan.scoring,
        unit_frames(scores),
        measurements,
        display,
        extrinsic.records,
        extrinsic_replicates=extrinsic.replicates,
        extrinsic_seed_replicates=extrinsic.seed_replicates,
    )
