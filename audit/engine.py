"""Runs a validated spec: the plan (built once by `audit.pipeline.audit_plan.plan_audit`,
the same plan `audit plan` prints), then its stages in order: training, scoring, the
precision check, extrinsic fine-tuning, SEAT, the score table, measures, the
language-modelling cost, studies, results.

The engine reports progress to a Display and never prints. Scores go to the score cache
as they are computed; `scores.parquet` is written before any measure runs, so nothing
computed is lost if a later stage fails. A model's weights are loaded only when some of
its scores are missing from the cache. Each stage is a function of its own module in
`audit.pipeline` (or `audit.precision_check`); the result is assembled by
`audit.pipeline.run_result`; this module only calls them in order and times them.

`audit plan` does not import this module (it plans with `audit.pipeline.audit_plan`), so
the stages' imports (numpy, scipy) load only for a run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from audit.cluster import executor_for
from audit.display import Display
from audit.executor import Executor
from audit.extrinsic.stage import ExtrinsicOutcome
from audit.models.prepared import ModelLoader
from audit.pipeline.audit_plan import plan_audit
from audit.pipeline.extrinsic import run_extrinsic_tasks
from audit.pipeline.measuring import (
    assemble_scores,
    compute_corpus_measurements,
    compute_measurements,
)
from audit.pipeline.run_result import RunFindings, assemble_result
from audit.pipeline.run_stages import (
    lm_quality_of,
    score_planned_units,
    seat_section,
    studies_of,
    write_scores,
)
from audit.pipeline.settings import RunSettings
from audit.pipeline.steps import executed_steps
from audit.pipeline.stopwatch import Stopwatch
from audit.pipeline.training import TrainedVariants, train_variants
from audit.pipeline.variant_results import variant_records
from audit.pipeline.worker import RunModels, RunWorker
from audit.precision_check import run_precision_checks
from audit.results import AuditResult
from audit.results_io import write_results
from audit.scoring.cache import ScoreCache
from audit.spec.loader import LoadedSpec

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["RunOutcome", "RunSettings", "executed_steps", "plan_audit", "run_audit"]


@dataclass
class RunOutcome:
    result: AuditResult
    scores: pd.DataFrame
    out_dir: Path
    #: What the run did, in the words of `AuditPlan.steps()` (a test compares the two).
    executed: list[str] = field(default_factory=list)


def run_audit(
    loaded: LoadedSpec,
    settings: RunSettings,
    display: Display,
    *,
    executor: Executor | None = None,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> RunOutcome:
    """Plan the audit once, run the plan and write results.json and scores.parquet into
    out_dir."""
    executor = executor or executor_for(loaded.spec.execution)
    plan = plan_audit(loaded, settings, display)
    watch = Stopwatch(dict(plan.timings))
    cache = ScoreCache(settings.cache_dir)
    settings.out_dir.mkdir(parents=True, exist_ok=True)
    loader = ModelLoader(settings, display)
    models = RunModels.of(plan)
    worker = RunWorker(plan, models, loader, cache, display)

    trained = TrainedVariants()
    if plan.variants is not None:
        trained = watch.time("variants", lambda: train_variants(plan, worker, executor, display))
    with watch.stage("scoring"):
        scored = score_planned_units(plan, models, worker, executor, display)
    precision_checks = watch.time(
        "precision_check",
        lambda: run_precision_checks(
            models.items(),
            plan.units,
            plan.datasets,
            seed=loaded.spec.seed,
            cache=cache,
            loader=loader,
            display=display,
        ),
        kept=bool,
    )
    extrinsic = ExtrinsicOutcome([], {}, {})
    if plan.extrinsic:
        extrinsic = watch.time(
            "extrinsic", lambda: run_extrinsic_tasks(plan, models, loader, display)
        )
    seat = None
    if plan.seat is not None:
        seat = watch.time("seat", lambda: seat_section(plan, models, loader, display))
    with watch.stage("assemble_scores"):
        scores = assemble_scores(plan, models, cache)
        write_scores(scores, settings.out_dir)
    with watch.stage("measures"):
        display.stage("measures")
        measurements = compute_measurements(plan, scores) + compute_corpus_measurements(plan)
    lm_quality = None
    if plan.lm_quality is not None:
        lm_quality = watch.time(
            "lm_quality", lambda: lm_quality_of(plan, models, cache, scored.lm_quality)
        )
    with watch.stage("studies"):
        studies = studies_of(plan, models, scores, measurements, extrinsic, display)
        variants = variant_records(
            plan,
            trained,
            measurements,
            extrinsic.records,
            replicates=studies.replicates,
            extrinsic_replicates=extrinsic.replicates,
        )
    found = RunFindings(
        scored.units, precision_checks, extrinsic.records, seat, measurements, lm_quality
    )
    result = assemble_result(
        plan, models, found, studies, variants, timings=watch.timings, created_at=now()
    )
    write_results(result, settings.out_dir / "results.json")
    return RunOutcome(result, scores, settings.out_dir, executed_steps(result))
