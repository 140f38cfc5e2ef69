"""Runs a validated spec: the plan (built once by `audit.pipeline.audit_plan.plan_audit`,
the same plan `audit plan` prints), then its stages in order: training, scoring, the
precision check, extrinsic fine-tuning, the score table, measures, studies, results.

The engine reports progress to a Display and never prints. Scores go to the score cache
as they are computed; `scores.parquet` is written before any measure runs, so nothing
computed is lost if a later stage fails. A model's weights are loaded only when some of
its scores are missing from the cache. Each stage is a function of its own module in
`audit.pipeline` (or `audit.precision_check`, `audit.studies`); this module only calls
them in order and times them.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from audit import __version__
from audit.atomic_write import atomic_path
from audit.display import Display
from audit.executor import Executor, group_by_model
from audit.models.prepared import ModelLoader
from audit.pipeline.audit_plan import AuditPlan, finetune_step, plan_audit, unit_line
from audit.pipeline.scoring_queue import queued_units
from audit.pipeline.seat_plan import seat_step
from audit.pipeline.settings import RunSettings
from audit.pipeline.training import TrainedVariants, train_variants
from audit.pipeline.worker import RunModels, RunWorker
from audit.results import AuditResult
from audit.results_io import write_results
from audit.scoring.cache import ModelIdentity, ScoreCache
from audit.scoring.units import ScoreUnit
from audit.spec.loader import LoadedSpec

if TYPE_CHECKING:
    import pandas as pd

    from audit.extrinsic.stage import ExtrinsicOutcome
    from audit.results import Measurement
    from audit.studies import Studies

__all__ = ["RunOutcome", "RunSettings", "executed_steps", "plan_audit", "run_audit"]


@dataclass
class RunOutcome:
    result: AuditResult
    scores: pd.DataFrame
    out_dir: Path
    #: What the run did, in the words of `AuditPlan.steps()` (a test compares the two).
    executed: list[str] = field(default_factory=list)


@dataclass
class _Timer:
    timings: dict[str, float]

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        started = time.monotonic()
        yield
        self.timings[name] = time.monotonic() - started


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
    from audit.cluster import executor_for
    from audit.pipeline.extrinsic import run_extrinsic_tasks
    from audit.pipeline.measuring import (
        assemble_scores,
        compute_corpus_measurements,
        compute_measurements,
    )
    from audit.pipeline.variant_results import variant_records
    from audit.precision_check import run_precision_checks

    executor = executor or executor_for(loaded.spec.execution)
    plan = plan_audit(loaded, settings, display)
    timer = _Timer(dict(plan.timings))
    cache = ScoreCache(settings.cache_dir)
    settings.out_dir.mkdir(parents=True, exist_ok=True)
    loader = ModelLoader(settings, display)
    models = RunModels.of(plan)
    worker = RunWorker(plan, models, loader, cache, display)

    trained = TrainedVariants()
    if plan.variants is not None:
        with timer.stage("variants"):
            trained = train_variants(plan, worker, executor, display)

    with timer.stage("scoring"):
        display.stage("scoring")
        # the held-out text's units run with the others: each model loads once
        work = group_by_model([*plan.units, *plan.lm_quality_units])
        display.overall(queued_units(work, plan, models))
        ran = executor.run(work, worker)
        lm_units = set(plan.lm_quality_units)
        units = [r for r in ran if ScoreUnit(r.model, r.dataset, r.scorer) not in lm_units]
        lm_unit_records = [r for r in ran if ScoreUnit(r.model, r.dataset, r.scorer) in lm_units]

    started = time.monotonic()
    precision_checks = run_precision_checks(
        models.items(),
        plan.units,
        plan.datasets,
        seed=loaded.spec.seed,
        cache=cache,
        loader=loader,
        display=display,
    )
    if precision_checks:
        timer.timings["precision_check"] = time.monotonic() - started

    from audit.extrinsic.stage import ExtrinsicOutcome

    outcome = ExtrinsicOutcome([], {}, {})
    if plan.extrinsic:
        with timer.stage("extrinsic"):
            outcome = run_extrinsic_tasks(plan, models, loader, display)
    extrinsic = outcome.records

    seat = None
    if plan.seat is not None:
        from audit.pipeline.seat_stage import run_seat_stage

        with timer.stage("seat"):
            seat = run_seat_stage(
                plan.seat,
                models,
                loader,
                cache_dir=settings.cache_dir,
                seed=loaded.spec.seed,
                alpha=loaded.spec.alpha,
                display=display,
            )

    with timer.stage("assemble_scores"):
        scores = assemble_scores(plan, models, cache)
        with atomic_path(settings.out_dir / "scores.parquet") as tmp:
            scores.to_parquet(tmp, index=False)

    with timer.stage("measures"):
        display.stage("measures")
        measurements = compute_measurements(plan, scores)
        measurements.extend(compute_corpus_measurements(plan))

    if plan.lm_quality is not None:
        from audit.pipeline.lm_quality import lm_quality_section

        with timer.stage("lm_quality"):
            lm_quality = lm_quality_section(
                plan.lm_quality,
                {k: ModelIdentity(m.fingerprint, m.precision, m.chat) for k, m in models.items()},
                cache,
                lm_unit_records,
                seed=loaded.spec.seed,
                n_bootstrap=loaded.spec.bootstrap,
                alpha=loaded.spec.alpha,
            )
    else:
        lm_quality = None

    with timer.stage("studies"):
        studies = _studies(plan, models, scores, measurements, outcome, display)
        variant_results = variant_records(
            plan,
            trained,
            measurements,
            extrinsic,
            replicates=studies.replicates,
            extrinsic_replicates=outcome.replicates,
        )

    from audit.environment import describe_environment
    from audit.gates import evaluate_gates
    from audit.pipeline.records import audit_info, dataset_record, model_records, used_plugin_cards

    spec = loaded.spec
    result = AuditResult(
        tool_version=__version__,
        created_at=now(),
        audit=audit_info(loaded),
        spec=loaded.raw,
        plugins=used_plugin_cards(plan),
        models=model_records(plan, models),
        datasets=[dataset_record(plan.datasets[d.name]) for d in spec.datasets],
        units=units,
        skipped_units=plan.scoring.skipped,
        measurements=measurements,
        gates=[gate.to_gate() for gate in spec.gates],
        robustness=studies.robustness,
        correlations=studies.correlations,
        comparisons=studies.comparisons,
        variants=variant_results.variants,
        corpora=variant_results.corpora,
        meta_evaluations=variant_results.meta_evaluations,
        extrinsic=extrinsic,
        lm_quality=lm_quality,
        seat=seat,
        precision_checks=precision_checks,
        environment=describe_environment(", ".join(sorted({m.device for _, m in models.items()}))),
        timings={k: round(v, 3) for k, v in timer.timings.items()},
    )
    result = result.model_copy(update={"gate_verdicts": evaluate_gates(result)})
    write_results(result, settings.out_dir / "results.json")
    return RunOutcome(result, scores, settings.out_dir, executed_steps(result))


def _studies(
    plan: AuditPlan,
    models: RunModels,
    scores: pd.DataFrame,
    measurements: list[Measurement],
    extrinsic: ExtrinsicOutcome,
    display: Display,
) -> Studies:
    from audit.pipeline.records import study_settings
    from audit.scoring.table import unit_frames
    from audit.studies import run_studies

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


def executed_steps(result: AuditResult) -> list[str]:
    """What a run did, read from its results, in the words of `AuditPlan.steps()`."""
    lines = [f"train {v.id} ({v.method.label} of {v.base})" for v in result.variants]
    lines += [f"score {unit_line(u.model, u.dataset, u.scorer)}" for u in result.units]
    if result.lm_quality is not None:
        lines += [
            f"score {unit_line(u.model, u.dataset, u.scorer)}" for u in result.lm_quality.units
        ]
    for r in result.extrinsic:  # one line per fine-tuning: each seed's, when several
        seeds: list[int | None] = [s.seed for s in r.seeds] or [None]
        lines += [finetune_step(r.task, r.model, seed) for seed in seeds]
    scored = {(u.model, u.dataset, u.scorer) for u in result.units}
    measured = dict.fromkeys(
        (m.measure, m.model, m.dataset, m.scorer)
        for m in result.measurements
        if (m.model, m.dataset, m.scorer) in scored
    )
    lines += [f"measure {ms.label} on {unit_line(m, d, sc)}" for ms, m, d, sc in measured]
    lines += [
        f"measure {m.measure.label} on the corpus"
        for m in result.measurements
        if m.model == "corpus"
    ]
    if result.seat is not None:
        ran = Counter((r.measure.label, r.model) for r in result.seat.tests)
        measures = {r.measure.label: r.measure for r in result.seat.tests}
        lines += [seat_step(measures[label], model, n) for (label, model), n in ran.items()]
    return lines
