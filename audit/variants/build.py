"""Train the variant jobs that are not in the cache: each base model is loaded once, its
original weights kept aside and put back before each job, so the jobs of one base never
see each other's training. A job's model is saved to the cache with its he/she probe;
an interrupted job resumes from its last checkpoint on the next run."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from audit.display import Display, format_duration
from audit.models.gguf_cache import save_plain
from audit.variants.cache import StoredVariant
from audit.variants.jobs import VariantJob

if TYPE_CHECKING:
    from audit.models.loaded import LoadedModel
    from audit.results import ProbeRecord, TrainingSummary
    from audit.training.status import TrainingStatus


def build_variants(
    jobs: Sequence[VariantJob],
    *,
    load_base: Callable[[str], LoadedModel],
    occupations: Sequence[str] | None,
    display: Display,
    stop_after: int | None = None,
) -> dict[str, StoredVariant]:
    """Train every job not yet cached (in order, grouped by base model) and return every
    job's stored variant by model id. `load_base(base_id)` loads a base model's weights;
    `occupations` are the probe's (None: no probe). `stop_after` is a test hook passed to
    the trainer (interrupts each training after that many steps)."""
    stored: dict[str, StoredVariant] = {}
    missing: dict[str, list[VariantJob]] = {}
    for job in jobs:
        if job.cached:
            stored[job.model_id] = job.store.read()
        else:
            missing.setdefault(job.base, []).append(job)
    for base, base_jobs in missing.items():
        loaded = load_base(base)
        original = {k: v.detach().clone() for k, v in loaded.model.state_dict().items()}
        for job in base_jobs:
            loaded.model.load_state_dict(original)
            if job.fit is not None:
                stored[job.model_id] = _project_one(job, loaded, occupations, display)
                continue
            if job.scoring_settings is not None:
                stored[job.model_id] = _store_scoring_time(job, loaded, occupations, display)
                continue
            stored[job.model_id] = _train_one(
                job, loaded, loaded.fingerprint, occupations, display, stop_after
            )
        del original
    return stored


def _train_one(
    job: VariantJob,
    loaded: LoadedModel,
    base_fingerprint: str,
    occupations: Sequence[str] | None,
    display: Display,
    stop_after: int | None,
) -> StoredVariant:
    key = f"train {job.model_id}"
    total = job.total_steps()
    label = f"training {job.model_id} ({job.method.name} of {job.base})"
    resumed = " (resuming)" if job.resumable else ""
    display.start(key, label + resumed, total)
    last_step = 0

    def progress(status: TrainingStatus) -> None:
        nonlocal last_step
        display.advance(key, status.step - last_step)
        last_step = status.step
        terms = "".join(f", {k} {v:.3g}" for k, v in status.terms.items())
        display.relabel(key, f"{label}: loss {status.loss:.3f}{terms}")

    try:
        summary = train_job(
            job, loaded, work_dir=job.store.work_dir, progress=progress, stop_after=stop_after
        )
    finally:
        display.finish(key)
    probe = probe_variant(loaded, occupations)
    if summary.steps > (summary.resumed_from_step or 0):
        from audit.variants.jobs import remember_speed, speed_key

        cache_dir = job.store.root.parent.parent
        remember_speed(
            cache_dir,
            speed_key(job, base_fingerprint, str(loaded.device)),
            summary.seconds / summary.steps,
        )
    staging = job.store.staging_dir()
    save_variant(loaded, staging)
    done = job.store.commit(staging, description=job.describe(), summary=summary, probe=probe)
    display.info(
        f"{job.model_id}: trained {summary.steps} steps in {format_duration(summary.seconds)}"
        + (
            f", loss {summary.first_loss:.3f} -> {summary.last_loss:.3f}"
            if summary.first_loss is not None and summary.last_loss is not None
            else ""
        )
    )
    return done


def _project_one(
    job: VariantJob,
    loaded: LoadedModel,
    occupations: Sequence[str] | None,
    display: Display,
) -> StoredVariant:
    """A post-hoc variant: its projection computed once from the base model, saved with
    the base model's files (`audit.variants.posthoc`), probed with the projection on."""
    from audit.models.projection import attach_projection, save_projection
    from audit.variants.posthoc import ProjectionSetup, fit_projection, projection_summary

    assert job.fit is not None and job.training.seed is not None
    key = f"project {job.model_id}"
    display.step(key, f"computing {job.model_id} ({job.method.name} of {job.base})")
    setup = ProjectionSetup(
        loaded=loaded,
        data=job.data,
        options=job.options,
        seed=job.training.seed,
        batch_size=job.training.batch_size,
        max_length=job.training.max_length,
        loc=f"variants[{job.entry_index}]",
    )
    fit, seconds = fit_projection(setup, job.fit)
    handle = attach_projection(loaded.model, fit.matrix)
    try:
        probe = probe_variant(loaded, occupations)
    finally:
        handle.remove()
    staging = job.store.staging_dir()
    save_variant(loaded, staging)
    save_projection(fit.matrix, staging)
    summary = projection_summary(job.method.name, fit, seconds, loaded.device)
    done = job.store.commit(
        staging,
        description={**job.describe(), "projection": fit.facts},
        summary=summary,
        probe=probe,
    )
    display.end_step(
        key,
        f"{job.model_id}: projection computed from {fit.examples} examples in "
        f"{format_duration(seconds)} (not trained)",
    )
    return done


def _store_scoring_time(
    job: VariantJob,
    loaded: LoadedModel,
    occupations: Sequence[str] | None,
    display: Display,
) -> StoredVariant:
    """A scoring-time variant (Self-Debias): its settings saved with the base model's
    files (`audit.models.self_debias`), probed with them applied. Nothing is trained."""
    from time import perf_counter

    from audit.models.self_debias import prepare_self_debias, save_self_debias
    from audit.results import TrainingSummary
    from audit.training.device import device_label

    assert job.scoring_settings is not None
    key = f"store {job.model_id}"
    display.step(key, f"storing {job.model_id} ({job.method.name} of {job.base})")
    started = perf_counter()
    settings = job.scoring_settings(job.options)
    loaded.self_debias = prepare_self_debias(settings, loaded.tokenizer, loaded.model, job.model_id)
    try:
        probe = probe_variant(loaded, occupations)
    finally:
        loaded.self_debias = None
    staging = job.store.staging_dir()
    save_variant(loaded, staging)
    save_self_debias(settings, staging)
    summary = TrainingSummary.model_validate(
        {
            "objective": job.method.name,
            "steps": 0,
            "examples": 0,
            "tokens": 0,
            "seconds": perf_counter() - started,
            "device": device_label(loaded.device),
        }
    )
    done = job.store.commit(
        staging,
        description={**job.describe(), "self_debias": settings.as_json()},
        summary=summary,
        probe=probe,
    )
    display.end_step(
        key,
        f"{job.model_id}: {len(settings.prefixes)} debiasing prefix(es), lambda "
        f"{settings.decay:g}, applied at scoring time (not trained)",
    )
    return done


def train_job(
    job: VariantJob,
    loaded: LoadedModel,
    *,
    work_dir: Path,
    stop_after: int | None,
    progress: Callable[[TrainingStatus], None] | None = None,
) -> TrainingSummary:
    """Train `loaded`'s model in place on the job's objective, data and settings, with
    its checkpoints in `work_dir`."""
    from audit.variants.trainer import train_model

    return train_model(
        loaded.model,
        loaded.tokenizer,
        model_type=loaded.model_type,
        objective=job.objective,
        data=job.data,
        settings=job.training,
        work_dir=work_dir,
        device=loaded.device,
        progress=progress,
        stop_after=stop_after,
    )


def probe_variant(loaded: LoadedModel, occupations: Sequence[str] | None) -> ProbeRecord | None:
    """The trained model's he/she probe on `occupations` (None: no probe)."""
    if occupations is None:
        return None
    from audit.variants.probe import probe_he_she

    return probe_he_she(
        loaded.model,
        loaded.tokenizer,
        model_type=loaded.model_type,
        occupations=occupations,
        device=loaded.device,
        self_debias=loaded.self_debias,
    )


def save_variant(loaded: LoadedModel, folder: Path) -> None:
    """The trained model as a Hugging Face folder (safetensors, float32) with its tokenizer;
    a model read from a GGUF file is saved as the plain float32 model it is
    (`audit.models.gguf_cache.save_plain`)."""
    save_plain(loaded.model, folder)
    loaded.tokenizer.save_pretrained(folder)
