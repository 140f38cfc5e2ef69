"""The text of `audit plan`: the plan `audit run` executes (`plan_audit`), as lines for
people: datasets, models, training jobs (variants, extrinsic fine-tunings) with what the
caches already hold, score units with the sentences each scores, measures, SEAT, and what is
skipped or computes nothing, with the reason."""

from __future__ import annotations

from typing import TYPE_CHECKING

from audit.pipeline.lm_quality_text import describe_lm_quality
from audit.pipeline.steps import unit_line

if TYPE_CHECKING:
    from audit.data.items import LoadedDataset
    from audit.extrinsic.finetune.store import FineTuneStore
    from audit.pipeline.audit_plan import AuditPlan
    from audit.scoring.cache import ScoreCache
    from audit.scoring.units import ScoreUnit
    from audit.variants.jobs import VariantJob


def _item_count(ds: LoadedDataset) -> str:
    """'5 pairs', '320 template items' or '300 sentences' (labelled): the dataset's items."""
    n = ds.rows_kept
    if ds.shape == "labelled":
        return f"{n:,} sentence{'s' if n != 1 else ''}"
    if ds.shape == "choices":
        return f"{n:,} question{'s' if n != 1 else ''}"
    if any(item.probe is not None for item in ds.pair_items()):
        return f"{n:,} template item{'s' if n != 1 else ''}"
    return f"{n:,} pair{'s' if n != 1 else ''}"


def idle_measures(plan: AuditPlan) -> list[tuple[str, str]]:
    """(measure label, why) for every measure of the spec that will compute nothing."""
    from audit.measures.catalog import MEASURES
    from audit.scoring_schedule import CORPUS_SHAPE
    from audit.spec.checks import held_shapes, shape_needs

    planned = {t.measure for t in plan.measures}
    planned |= {t.measure for t in plan.corpus_measures}
    planned |= {run.measure for run in plan.seat.runs} if plan.seat is not None else set()
    shapes = {ds.shape for ds in plan.datasets.values()}
    idle: list[tuple[str, str]] = []
    for ref in plan.loaded.spec.measures:
        if ref.id in planned:
            continue
        fits = MEASURES.entry(ref.name).shape
        if fits != CORPUS_SHAPE and fits not in shapes:
            why = (
                f"the spec's datasets hold only {held_shapes(shapes)}; it needs {shape_needs(fits)}"
            )
        else:
            why = f"no scoring unit feeds it: every unit on its {fits} datasets is skipped"
        idle.append((ref.id.label, why))
    return idle


def describe_variants(plan: AuditPlan) -> list[str]:
    """Each variant job: cached, or to train (resuming where a checkpoint is) with its
    steps, or, for a post-hoc projection, to compute with what it is computed from (its
    time is in the plan's time estimate, `audit.pipeline.time_estimate`)."""
    variants = plan.variants
    if variants is None:
        return []
    lines = ["Variants:"]
    missing = 0
    for job in variants.jobs:
        if job.scoring_settings is not None:
            lines.append(_scoring_time_line(job, cached=job.cached))
            continue
        what = f"{job.method.label} of {job.base} on {job.corpus.name}"
        if job.cached:
            made = "computed" if job.fit is not None else "trained"
            lines.append(f"  {job.model_id}: {what}: {made}, in the cache")
            continue
        missing += 1
        if job.fit is not None:
            state = "to compute"
        else:
            state = "to train, resuming from a checkpoint" if job.resumable else "to train"
        state += _why(job.store.why_missing())
        lines.append(
            f"  {job.model_id}: {what}: {state}: {job.work_text()} on "
            f"{plan.models[job.base].device}"
        )
    if missing:
        posthoc = any(job.fit is not None and not job.cached for job in variants.jobs)
        verb, made = ("train or compute", "made") if posthoc else ("train", "trained")
        lines.append(
            f"  {missing} of {len(variants.jobs)} to {verb}; their scoring units run once "
            f"they are {made}"
        )
    return lines


def _scoring_time_line(job: VariantJob, *, cached: bool) -> str:
    """A scoring-time variant (Self-Debias): nothing to train; what scoring it costs."""
    assert job.scoring_settings is not None
    settings = job.scoring_settings(job.options)
    k = len(settings.prefixes)
    state = (
        "stored, in the cache"
        if cached
        else "to store (the base's files and settings)" + _why(job.store.why_missing())
    )
    return (
        f"  {job.model_id}: {job.method.label} of {job.base}: not trained, applied at "
        f"scoring time: {k} debiasing prefix{'es' if k != 1 else ''}, lambda "
        f"{settings.decay:g}; each scored row runs {1 + k} times (plain + prefixed): {state}"
    )


def describe_extrinsic(plan: AuditPlan) -> list[str]:
    """Each extrinsic task on each of its models: fine-tuned (in the cache) or to
    fine-tune; a variant not trained yet is fine-tuned after its training."""
    if not plan.extrinsic:
        return []
    from audit.extrinsic.budget import budget_warnings, epochs_covered

    spec_seed = plan.loaded.spec.seed
    lines = ["Extrinsic tasks:"]
    for task in plan.extrinsic:
        steps = task.total_steps()
        settings, n_train = task.spec.finetune, len(task.data.train)
        covered = epochs_covered(settings, n_train) if n_train else None
        epochs = "" if covered is None else f" ({covered:.2g} epoch{'' if covered == 1 else 's'})"
        seeds = task.seeds(spec_seed)
        several = len(seeds) > 1
        per_model = (
            f", {len(seeds)} seeds per model ({', '.join(map(str, seeds))}), their mean measured"
            if several
            else ""
        )
        lines.append(
            f"  {task.name} ({task.entry.head} head on {n_train:,} examples, "
            f"{steps:,} steps x {settings.batch_size}{epochs}, a curve point every "
            f"{settings.checkpoint_every:,} steps, measured at the "
            f"{settings.checkpoint.replace('_', ' ')} checkpoint{per_model}):"
        )
        lines += [
            f"    warning: finetune.{w.field}: {w.message}"
            for w in budget_warnings(settings, n_train or None)
        ]
        for model_id in task.models:
            model = plan.models.get(model_id)
            if model is None:
                count = f" {len(seeds)} times" if several else ""
                lines.append(f"    {model_id}: to fine-tune{count} once the variant is trained")
                continue
            for seed in seeds:
                which = f" (seed {seed})" if several else ""
                store = task.cache_store(
                    plan.settings.cache_dir, model.fingerprint, model.model_type, seed
                )
                lines.append(
                    f"    {model_id}{which}: {_finetune_state(store)} (key {store.key[:8]})"
                )
        lines += [f"    {model_id}: left out: {reason}" for model_id, reason in task.left_out]
    return lines


def _finetune_state(store: FineTuneStore) -> str:
    if store.is_done():
        return "fine-tuned, in the cache"
    if store.has_checkpoint():
        return "to fine-tune, resuming from a checkpoint"
    return "to fine-tune" + _why(store.why_missing())


def _why(reason: str | None) -> str:
    """' (<why it is made again>)', or '' when it was never made."""
    return f" ({reason})" if reason else ""


def describe_seat(plan: AuditPlan) -> list[str]:
    """Each `seat` entry: its tests and, per model, whether its results are in the cache;
    the models it leaves out, with the reason."""
    if plan.seat is None:
        return []
    from audit.pipeline.seat_stage import cache_path, seat_cache_key, why_seat_missing

    lines = [f"SEAT (tests from {plan.seat.folder}):"]
    for run in plan.seat.runs:
        names = ", ".join(test.name for test in run.tests)
        lines.append(f"  {run.measure.label}: {len(run.tests)} tests ({names})")
        for model_id in run.models:
            model = plan.models.get(model_id)
            if model is None:
                state = "once the variant is trained"
            elif cache_path(
                plan.settings.cache_dir, seat_cache_key(run, model, plan.loaded.spec.seed)
            ).is_file():
                state = "in the cache"
            else:
                why = why_seat_missing(plan.settings.cache_dir, run, model, plan.loaded.spec.seed)
                state = "to compute" if why is None else f"to compute ({why})"
            lines.append(f"    {model_id}: {state}")
        lines += [f"    {model_id}: left out: {reason}" for model_id, reason in run.skipped]
    return lines


def describe_plan(plan: AuditPlan, cache: ScoreCache | None = None) -> str:
    """What `audit run` will do, from the plan it runs: datasets, models, training jobs,
    units (with the sentences each scores, counted as the run counts them, and how many
    are already in the score cache), measures, what is skipped and what will compute
    nothing, and why."""
    lines = ["Datasets:"]
    for ds in plan.datasets.values():
        lines.append(f"  {ds.name}: {_item_count(ds)} ({ds.source})")
    lines.append("Models:")
    bases = plan.variant_bases()
    jobs = plan.variants.jobs if plan.variants is not None else []
    scoring_time = {job.model_id for job in jobs if job.scoring_settings is not None}
    for model_id in plan.model_order:
        model = plan.models.get(model_id)
        if model is None:
            made = "stored" if model_id in scoring_time else "trained"
            lines.append(
                f"  {model_id}: {plan.model_types[model_id]} LM, a variant of "
                f"{bases[model_id]} {made} by this run"
            )
            continue
        lines.append(
            f"  {model_id}: {model.model_type} LM, {model.resolved.source}, "
            f"fingerprint {model.fingerprint[:12]}, {model.precision}"
        )
    lines += describe_variants(plan)
    lines += describe_extrinsic(plan)
    lines.append("Scoring units (model x dataset x scorer -> measures):")
    total = to_score = 0
    for unit in plan.units:
        measures = [t.measure.label for t in plan.measures if t.unit == unit]
        dataset = plan.datasets[unit.dataset]
        work = ""
        if cache is not None:
            sentences, cached = _unit_work(plan, unit, dataset, cache)
            total += sentences
            to_score += sentences - cached
            items = _item_count(dataset)
            work = (
                f": {items}"
                if items.endswith(" sentences")
                else f": {items} ({sentences:,} sentences)"
            )
            if unit.model not in plan.models:
                work += f"; once {unit.model} is trained"
            elif cached:
                work += (
                    "; all in the cache"
                    if cached == sentences
                    else f"; {cached:,} saved (in the cache or a killed run's batch journal)"
                )
            if unit.model in plan.models and cached < sentences:
                again = _scored_again(plan, unit, cache)
                work += f"; to score again: {again}" if again else ""
        what = unit_line(unit.model, unit.dataset, unit.scorer)
        lines.append(f"  {what} -> {', '.join(measures) or '-'}{work}")
    for task in plan.corpus_measures:
        lines.append(f"  corpus measure: {task.measure.label}")
    if cache is not None and plan.units:
        cached_all = total - to_score
        lines.append(
            f"  in all: {total:,} sentences; {to_score:,} to score"
            + (f", {cached_all:,} already in the cache" if cached_all else "")
        )
    lines += describe_lm_quality(plan, cache)
    lines += describe_seat(plan)
    if plan.scoring.skipped:
        lines.append("Skipped:")
        for skipped in plan.scoring.skipped:
            lines.append(
                f"  {skipped.model} x {skipped.dataset} x {skipped.scorer.label}: {skipped.reason}"
            )
    idle = idle_measures(plan)
    if idle:
        lines.append("Computes nothing:")
        lines += [f"  {label}: {why}" for label, why in idle]
    return "\n".join(lines)


def _scored_again(plan: AuditPlan, unit: ScoreUnit, cache: ScoreCache) -> str | None:
    """Why a unit scores what the cache holds scores of by another version of its scorer."""
    from audit.scoring.runner import why_scored_again

    model = plan.models[unit.model]
    return why_scored_again(
        unit, cache=cache, fingerprint=model.fingerprint, precision=model.precision
    )


def _unit_work(
    plan: AuditPlan, unit: ScoreUnit, dataset: LoadedDataset, cache: ScoreCache
) -> tuple[int, int]:
    """(sentences, already saved) of a unit; a variant not trained yet has none saved."""
    from audit.scoring.runner import planned_work, unit_input, unit_jobs

    model = plan.models.get(unit.model)
    if model is None:
        shape = unit_input(unit.scorer)
        return sum(shape.work(j.texts) for j in unit_jobs(unit.scorer, dataset)), 0
    return planned_work(
        unit,
        dataset=dataset,
        cache=cache,
        fingerprint=model.fingerprint,
        precision=model.precision,
        chat=model.chat_for(unit.dataset),
    )
