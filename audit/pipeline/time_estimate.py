"""How long a planned run will take, per stage (scoring, training, fine-tuning), from
throughput measured on this machine (`audit.calibration`), with what each estimate is
based on. A measurement not in the cache is taken on first use: on the model's
architecture with random weights (`audit.pipeline.shape_model`; no weights read), or,
with `audit plan --calibrate`, on the model itself, loaded once (in the run's precision
to score, in float32 to train).

A scoring unit's time is its scorer's measured seconds per sentence on slices of the
unit's own items sorted by length (batched as the run batches them: `calibration.
time_scoring`), times the sentences not yet saved; a variant not trained
yet is timed as its base (the same shape). A training's time is its steps times the
seconds of a step: measured by earlier trainings of the same shape on this machine, else
a short training by the run's own trainer timed on the base (`time_variant_steps`: the
method's objective, AdamW and clipping, so AT's frozen original and second batch, CDA's
counterfactual sentences and LoRA are in the step's time; its set-up and first step,
where AT computes its attribute vectors, counted once). A
fine-tuning's time is its steps and checkpoints, timed in a short fine-tuning by the run's
own code (`audit.pipeline.finetune_estimate`). Post-hoc projections (stage "projection")
and SEAT (in "scoring") encode sentences instead: `audit.pipeline.encode_estimate`; a
served model's units are timed through its endpoint (`audit.pipeline.served_estimate`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from audit.calibration import Throughput, spread_sample, time_scoring
from audit.pipeline.calibrator import (
    Calibrator,
    StageEstimate,
    TimedSteps,
    estimate_of,
    sample_hash,
    timed_as,
)
from audit.pipeline.encode_estimate import projection_estimate, seat_estimates
from audit.pipeline.finetune_estimate import finetune_estimates
from audit.pipeline.served_estimate import served_estimate
from audit.pipeline.steps import unit_line

if TYPE_CHECKING:
    from audit.models.loaded import LoadedModel
    from audit.models.self_debias import SelfDebiasSettings
    from audit.pipeline.audit_plan import AuditPlan
    from audit.scoring.cache import ScoreCache
    from audit.scoring.units import ScoreUnit
    from audit.variants.jobs import VariantJob

__all__ = ["Calibrator", "StageEstimate", "describe_times", "estimate_times"]


def scoring_estimates(
    plan: AuditPlan, cache: ScoreCache, calibrator: Calibrator
) -> list[StageEstimate]:
    """Each unit with sentences to score, the held-out text's (the variants' language-
    modelling cost, scored in the same stage) included: its time from the scorer's
    measured rate."""
    from audit.ids import canonical_options
    from audit.scoring.catalog import SCORERS
    from audit.scoring.runner import planned_work, unit_input, unit_jobs

    estimates: list[StageEstimate] = []
    for unit in [*plan.units, *plan.lm_quality_units]:
        dataset = plan.dataset(unit.dataset)
        shape = unit_input(unit.scorer)
        timed_on = timed_as(plan, unit.model)
        model = plan.models[timed_on]
        chat = model.chat_for(unit.dataset)
        jobs = unit_jobs(unit.scorer, dataset, chat)
        if unit.model in plan.models:
            sentences, cached = planned_work(
                unit,
                dataset=dataset,
                cache=cache,
                fingerprint=model.fingerprint,
                precision=model.precision,
                chat=chat,
            )
        else:
            sentences, cached = sum(shape.work(j.texts) for j in jobs), 0
        to_score = sentences - cached
        if not to_score:
            continue
        what = f"{unit_line(unit.model, unit.dataset, unit.scorer)}: {to_score:,} sentences"
        info = SCORERS.entry(unit.scorer.name).info
        debias = _self_debias_settings(plan, unit.model) if timed_on != unit.model else None
        key = calibrator.key(
            "score",
            model,
            f"{info.name} v{info.version}",
            canonical_options(unit.scorer.options),
            unit.dataset,
            sample_hash([j.texts for j in spread_sample(jobs, 256)]),
            *([] if debias is None else [f"self_debias {debias.as_json()}"]),
        )
        if model.spec.scored_by_server:
            estimates.append(
                served_estimate(
                    calibrator,
                    model,
                    unit.scorer,
                    jobs,
                    shape.work,
                    key=key,
                    what=what,
                    to_score=to_score,
                )
            )
            continue
        basis = (
            f"{unit.scorer.label} timed on slices of {unit.dataset} sorted by length, "
            f"with {timed_on} on {model.device}"
        )
        timing = _scoring_timing(unit, jobs, shape.work)
        if debias is not None:
            # its base with the variant's prefixes: each row runs once more per prefix,
            # and each prefixed copy is longer than the sentence by its prefix
            timing = _with_self_debias(timing, debias, unit.model)
            basis += f" and {unit.model}'s {len(debias.prefixes)} Self-Debias prefixes"
        throughput = calibrator.throughput(key, timed_on, float32=False, timing=timing, basis=basis)
        if debias is not None:
            what += f" (timed on its base {timed_on} with its prefixes)"
        elif timed_on != unit.model:
            what += f" (timed as its base {timed_on})"
        estimates.append(estimate_of("scoring", what, throughput, to_score, "sentence"))
    return estimates


def _self_debias_settings(plan: AuditPlan, model_id: str) -> SelfDebiasSettings | None:
    """The Self-Debias settings of a scoring-time variant; None for any other model."""
    if plan.variants is None:
        return None
    for job in plan.variants.jobs:
        if job.model_id == model_id and job.scoring_settings is not None:
            return job.scoring_settings(job.options)
    return None


def _with_self_debias(
    timing: Callable[[LoadedModel], tuple[float, int]],
    settings: SelfDebiasSettings,
    model_id: str,
) -> Callable[[LoadedModel], tuple[float, int]]:
    """`timing` run on its base model with `settings`' prefixes, as the variant scores."""
    from audit.models.self_debias import prepare_self_debias

    def timed(loaded: LoadedModel) -> tuple[float, int]:
        debias = prepare_self_debias(settings, loaded.tokenizer, loaded.model, model_id)
        return timing(dataclasses.replace(loaded, self_debias=debias))

    return timed


def _scoring_timing(
    unit: ScoreUnit, jobs: list[Any], work: Callable[[tuple[str, ...]], int]
) -> Callable[[LoadedModel], tuple[float, int]]:
    return lambda loaded: time_scoring(unit.scorer, jobs, loaded, lambda job: work(job.texts))


def training_estimates(plan: AuditPlan, calibrator: Calibrator) -> list[StageEstimate]:
    """Each variant to train: its steps times a step's measured seconds; each post-hoc
    variant to compute: its projection's estimate."""
    if plan.variants is None:
        return []
    from audit.variants.jobs import measured_speed, speed_key

    estimates: list[StageEstimate] = []
    for job in plan.variants.jobs:
        if job.cached or job.scoring_settings is not None:  # Self-Debias trains nothing
            continue
        if job.fit is not None:
            estimates.append(projection_estimate(plan, calibrator, job))
            continue
        base = plan.models[job.base]
        steps = job.total_steps()
        what = f"{job.model_id} ({job.method.label} of {job.base}): {steps:,} steps"
        earlier = measured_speed(
            plan.settings.cache_dir, speed_key(job, base.fingerprint, base.device)
        )
        if earlier is not None:
            basis = f"{earlier:.3g} s a step, measured by earlier trainings of this shape here"
            estimates.append(StageEstimate("training", what, earlier * steps, basis))
            continue
        throughput = _step_throughput(plan, calibrator, job)
        estimates.append(estimate_of("training", what, throughput, steps, "step"))
    return estimates


def _step_throughput(plan: AuditPlan, calibrator: Calibrator, job: VariantJob) -> Throughput | None:
    """Seconds a step of the job's training, its set-up counted in (a whole training
    divided by its steps), timed through the trainer itself."""
    import hashlib
    import json

    base = plan.models[job.base]
    training = job.training
    steps = job.total_steps()
    shape = {
        "objective": job.objective.identity(),
        "training": training.model_dump(mode="json", exclude={"steps", "epochs", "seed"}),
        "steps": steps,
    }
    digest = hashlib.sha256(json.dumps(shape, sort_keys=True, default=str).encode())
    key = calibrator.key("train", base, digest.hexdigest()[:16])
    lora = " with LoRA adapters" if training.lora is not None else ""
    basis = (
        f"{TIMED_TRAINING_STEPS} timed steps of the {job.method.name} training itself "
        f"(its {job.objective.kind} objective, {training.batch_size} x up to "
        f"{training.max_length} tokens, AdamW, clipping{lora}) on {job.base} on "
        f"{base.device}, the median counted, and its set-up and first step once"
    )
    return calibrator.throughput(
        key, job.base, float32=True, timing=_variant_timing(job, steps), basis=basis
    )


#: Steps of a variant's training timed for the plan (after its set-up and first step).
TIMED_TRAINING_STEPS = 3


def _variant_timing(job: VariantJob, steps: int) -> Callable[[LoadedModel], tuple[float, int]]:
    def timing(loaded: LoadedModel) -> tuple[float, int]:
        return time_variant_steps(job, loaded, TIMED_TRAINING_STEPS).whole(steps), steps

    return timing


def time_variant_steps(job: VariantJob, loaded: LoadedModel, timed: int) -> TimedSteps:
    """`job`'s training run on `loaded` (a model built for the measurement: its weights
    change) by the run's own trainer (`train_job`) for `timed` + 1 steps, timed: the
    method's objective on its data, dropout and LoRA as the run puts them, AdamW and
    gradient clipping; the set-up and first step (where AT computes its attribute vectors
    over every attribute sentence) apart from the later steps; no checkpoint written."""
    import tempfile
    from pathlib import Path

    from audit.calibration import clock
    from audit.variants.build import train_job

    settings = job.training.model_copy(
        update={"steps": timed + 1, "epochs": None, "checkpoint_every": timed + 2}
    )
    stamps: list[float] = []
    with tempfile.TemporaryDirectory(prefix="audit-plan-train-") as work:
        began = clock()
        train_job(
            dataclasses.replace(job, training=settings),
            loaded,
            work_dir=Path(work),
            stop_after=None,
            progress=lambda _status: stamps.append(clock()),
        )
    return TimedSteps.of(began, stamps)


def estimate_times(
    plan: AuditPlan, cache: ScoreCache, calibrator: Calibrator
) -> list[StageEstimate]:
    """Every piece of work the run has left, per stage, with its estimated time."""
    try:
        return [
            *training_estimates(plan, calibrator),
            *finetune_estimates(plan, calibrator),
            *scoring_estimates(plan, cache, calibrator),
            *seat_estimates(plan, calibrator),
        ]
    finally:
        calibrator.close()


def describe_times(estimates: list[StageEstimate], cache_file: str) -> list[str]:
    """The plan's "Time estimate" section: per stage its total, then each piece with its
    time and what it is based on; the whole run's total last."""
    from audit.display import format_duration

    if not estimates:
        return ["Time estimate: nothing to score, train or fine-tune (all in the caches)"]
    lines = [
        f"Time estimate (throughput measured on this machine, on the models' weights with "
        f"`audit plan --calibrate`, else on their architectures; cached in {cache_file}):"
    ]
    for stage in ("training", "projection", "fine-tuning", "scoring"):
        mine = [e for e in estimates if e.stage == stage]
        if not mine:
            continue
        lines.append(f"  {stage}: {_total(mine, format_duration)}")
        for e in mine:
            if e.seconds is not None:
                lines.append(f"    {e.what}, {_about(e.seconds, format_duration)} ({e.basis})")
        unmeasured = [e for e in mine if e.seconds is None]
        if unmeasured:
            lines.append(_unmeasured(unmeasured))
    lines.append(
        f"  in all: {_total(estimates, format_duration)} (rough: short samples timed, "
        "not counting model loading, measures and the report)"
    )
    return lines


#: Pieces named on the one line that counts a stage's pieces with no estimate.
UNMEASURED_NAMED = 3


def _unmeasured(pieces: list[StageEstimate]) -> str:
    """One line for a stage's pieces with no estimate (a spec of many models and variants
    has dozens): how many, the first few, and why (their bases, each once)."""
    named = "; ".join(e.what for e in pieces[:UNMEASURED_NAMED])
    more = len(pieces) - UNMEASURED_NAMED
    if more > 0:
        named += f"; and {more} more"
    why = "; ".join(dict.fromkeys(e.basis for e in pieces))
    count = "1 piece" if len(pieces) == 1 else f"{len(pieces)} pieces"
    return f"    not estimated, {count}: {named} ({why})"


def _total(estimates: list[StageEstimate], fmt: Callable[[float], str]) -> str:
    seconds = sum(e.seconds for e in estimates if e.seconds is not None)
    missing = sum(e.seconds is None for e in estimates)
    if missing == len(estimates):
        return "not estimated (not measured yet)"
    text = _about(seconds, fmt)
    return text + f", more for {missing} not measured" if missing else text


def _about(seconds: float, fmt: Callable[[float], str]) -> str:
    return "under 1 s" if seconds < 0.5 else f"about {fmt(seconds)}"
