"""The plan of an audit, built once from a validated spec: its datasets read, its models
prepared, its training jobs (debiasing variants and bias-controlled models, extrinsic
task fine-tunes), its score units and measure tasks. `audit plan` prints it and `audit
run` executes it; neither plans again.

Every variant's id and type are known before it is trained, so its score units are
planned with the others. What only training gives (the trained folder, so the
fingerprint in its score cache keys and its fine-tunings' keys) is resolved when the
run reaches it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from audit.errors import AuditUserError
from audit.ids import PluginId
from audit.models.prepared import PreparedModel, known_parameters, prepare_model
from audit.models.sources import ModelSpec, PathSource
from audit.pipeline.inputs import prepare_models, read_datasets
from audit.plan import Plan, build_plan
from audit.scoring.units import ScoreUnit

if TYPE_CHECKING:
    from audit.data.items import LoadedDataset
    from audit.display import Display
    from audit.extrinsic.planned import PlannedTask
    from audit.pipeline.lm_quality import LmQualityPlan
    from audit.pipeline.seat_plan import SeatPlan
    from audit.pipeline.settings import RunSettings
    from audit.plan import CorpusTask, MeasureTask
    from audit.spec.loader import LoadedSpec
    from audit.variants.cache import StoredVariant
    from audit.variants.jobs import VariantJob, VariantPlan


@dataclass(frozen=True)
class TrainingJob:
    """One model the run trains: a variant (or bias-controlled ratio model) of a base, or
    an extrinsic task's head fine-tuned on a model. `key` is the job's content key (its
    cache folder); None for a fine-tuning on a variant not trained yet (its key holds the
    variant's fingerprint, known once the variant is trained). `seed`: the fine-tuning's
    seed when its task fine-tunes each model with several (`finetune.seeds`), else None."""

    kind: Literal["variant", "finetune"]
    model: str
    what: str
    key: str | None
    seed: int | None = None


@dataclass
class AuditPlan:
    """Everything `audit run` will do, in the order it does it (see the module docstring).

    `models` holds the models prepared while planning: the spec's models and the variants
    already trained (in the cache); `model_order` and `model_types` hold every model the
    run scores, variants included, each variant right after its base."""

    loaded: LoadedSpec
    settings: RunSettings
    datasets: dict[str, LoadedDataset]
    models: dict[str, PreparedModel]
    model_order: tuple[str, ...]
    model_types: dict[str, str]
    scoring: Plan
    variants: VariantPlan | None = None
    stored_variants: dict[str, StoredVariant] = field(default_factory=dict)
    probe_occupations: list[str] | None = None
    extrinsic: list[PlannedTask] = field(default_factory=list)
    lm_quality: LmQualityPlan | None = None
    seat: SeatPlan | None = None
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def units(self) -> list[ScoreUnit]:
        return self.scoring.units

    @property
    def measures(self) -> list[MeasureTask]:
        return self.scoring.measures

    @property
    def corpus_measures(self) -> list[CorpusTask]:
        return self.scoring.corpus_measures

    @property
    def lm_quality_units(self) -> list[ScoreUnit]:
        """The score units of the held-out text (the variants' language-modelling cost)."""
        return [] if self.lm_quality is None else list(self.lm_quality.units)

    def dataset(self, name: str) -> LoadedDataset:
        """A dataset a score unit names: one of the spec's, or the held-out text."""
        if self.lm_quality is not None and name == self.lm_quality.text.dataset.name:
            return self.lm_quality.text.dataset
        return self.datasets[name]

    @property
    def variant_jobs(self) -> list[VariantJob]:
        return [] if self.variants is None else list(self.variants.jobs)

    def variant_bases(self) -> dict[str, str]:
        """Each variant's base model."""
        return {job.model_id: job.base for job in self.variant_jobs}

    def ratio_models(self) -> list[str]:
        """The variants that are bias-controlled ratio models (one per male share r)."""
        return [job.model_id for job in self.variant_jobs if job.part.ratio is not None]

    def training_jobs(self) -> list[TrainingJob]:
        """Every training job: the variants (spec order), then each extrinsic task on its
        models (run order), one job per fine-tuning seed."""
        jobs = [
            TrainingJob("variant", j.model_id, f"{j.method.label} of {j.base}", j.key)
            for j in self.variant_jobs
        ]
        spec_seed = self.loaded.spec.seed
        for task in self.extrinsic:
            seeds = task.seeds(spec_seed)
            for model_id in task.models:
                model = self.models.get(model_id)
                for seed in seeds:
                    key = (
                        None
                        if model is None
                        else task.cache_key(model.fingerprint, model.model_type, seed)
                    )
                    named = seed if len(seeds) > 1 else None
                    jobs.append(TrainingJob("finetune", model_id, task.name, key, named))
        return jobs

    def steps(self) -> list[str]:
        """The plan as one line per piece of work, in the words `executed_steps` uses for
        what a run did: train, score, fine-tune, measure (SEAT last, per model)."""
        jobs = self.training_jobs()
        lines = [f"train {j.model} ({j.what})" for j in jobs if j.kind == "variant"]
        lines += [f"score {unit_line(u.model, u.dataset, u.scorer)}" for u in self.units]
        lines += [f"score {unit_line(u.model, u.dataset, u.scorer)}" for u in self.lm_quality_units]
        lines += [finetune_step(j.what, j.model, j.seed) for j in jobs if j.kind == "finetune"]
        lines += [
            f"measure {t.measure.label} on {unit_line(t.unit.model, t.unit.dataset, t.unit.scorer)}"
            for t in self.measures
        ]
        lines += [f"measure {t.measure.label} on the corpus" for t in self.corpus_measures]
        lines += [] if self.seat is None else self.seat.steps()
        return lines


def unit_line(model: str, dataset: str, scorer: PluginId) -> str:
    """A score unit as `audit plan` lists it: 'model x dataset x scorer'."""
    return f"{model} x {dataset} x {scorer.label}"


def finetune_step(task: str, model: str, seed: int | None = None) -> str:
    """A fine-tuning as `audit plan` lists it; `seed` when its task has several."""
    return f"fine-tune {task} on {model}" + ("" if seed is None else f" (seed {seed})")


def plan_audit(loaded: LoadedSpec, settings: RunSettings, display: Display) -> AuditPlan:
    """Read the datasets, prepare the models (downloads, checksums, types), plan the
    training jobs (their data read: bad input stops here, before anything trains) and the
    score units and measures over every model, variants included."""
    spec = loaded.spec
    timings: dict[str, float] = {}
    started = time.monotonic()
    datasets = read_datasets(loaded, settings, display)
    timings["datasets"] = time.monotonic() - started
    started = time.monotonic()
    models = prepare_models(loaded, settings, display)
    timings["models"] = time.monotonic() - started
    plan = AuditPlan(
        loaded,
        settings,
        datasets,
        models,
        model_order=tuple(models),
        model_types={model_id: m.model_type for model_id, m in models.items()},
        scoring=Plan(),
        timings=timings,
    )
    if spec.variants:
        started = time.monotonic()
        _plan_variants(plan)
        timings["variant_planning"] = time.monotonic() - started
        started = time.monotonic()
        plan.lm_quality = _plan_lm_quality(plan)
        if plan.lm_quality is not None:
            timings["lm_quality_planning"] = time.monotonic() - started
    if spec.extrinsic:
        started = time.monotonic()
        plan.extrinsic = _plan_extrinsic_tasks(plan)
        timings["extrinsic_planning"] = time.monotonic() - started
    plan.seat = _plan_seat(plan)
    plan.scoring = build_plan(spec, model_types=plan.model_types)
    return plan


def _plan_seat(plan: AuditPlan) -> SeatPlan | None:
    """The spec's `seat` entries with their test files read from `<data dir>/seat/` (a
    missing folder stops the run here) over every model, variants included."""
    from audit.pipeline.seat_plan import plan_seat

    return plan_seat(
        plan.loaded.spec, data_dir=plan.settings.data_dir, model_types=plan.model_types
    )


def _plan_variants(plan: AuditPlan) -> None:
    """The variant jobs, the probe's occupations, and every variant placed right after
    its base with its base's type; the variants in the cache prepared as models."""
    variants = _plan_variant_jobs(plan.models, plan.loaded, plan.settings)
    plan.variants = variants
    plan.probe_occupations = probe_occupations(variants, plan.settings)
    bases = plan.model_order
    plan.model_order = tuple(m for b in bases for m in (b, *_variant_ids(variants, b)))
    types = plan.model_types | {job.model_id: plan.model_types[job.base] for job in variants.jobs}
    plan.model_types = {model_id: types[model_id] for model_id in plan.model_order}
    _prepare_stored_variants(plan)


def _plan_lm_quality(plan: AuditPlan) -> LmQualityPlan | None:
    """The held-out text and its score units over each base with variants and its
    variants (the variants' language-modelling cost)."""
    from audit.pipeline.lm_quality import plan_lm_quality

    assert plan.variants is not None
    spec = plan.loaded.spec
    return plan_lm_quality(
        spec.lm_quality,
        plan.variants,
        model_types=plan.model_types,
        dataset_names=plan.datasets,
        data_dir=plan.settings.data_dir,
        base_dir=plan.loaded.path.parent,
        seed=spec.seed,
    )


def _variant_ids(variants: VariantPlan, base: str) -> list[str]:
    return [job.model_id for job in variants.of_base(base)]


def _plan_variant_jobs(
    models: Mapping[str, PreparedModel], loaded: LoadedSpec, settings: RunSettings
) -> VariantPlan:
    """Every variant job, its corpus read and training data built."""
    from audit.variants.jobs import BaseModelFacts, plan_variants

    bases = {
        model_id: BaseModelFacts(
            fingerprint=model.fingerprint,
            model_type=model.model_type,
            n_parameters=known_parameters(settings.cache_dir, model.fingerprint),
        )
        for model_id, model in models.items()
    }
    return plan_variants(
        loaded.spec.variants,
        bases=bases,
        seed=loaded.spec.seed,
        data_dir=settings.data_dir,
        base_dir=loaded.path.parent,
        cache_dir=settings.cache_dir,
    )


def probe_occupations(plan: VariantPlan, settings: RunSettings) -> list[str] | None:
    """The he/she probe's occupations (Winogender's list in the data folder). Required by
    bias_controlled (its control check); without a data folder other variants go unprobed."""
    from audit.variants.probe import load_probe_occupations

    needed = [job.entry for job in plan.jobs if job.method.name == "bias_controlled"]
    if settings.data_dir is None:
        if needed:
            raise AuditUserError(
                f"variant '{needed[0]}' (bias_controlled) checks its control with the he/she "
                "probe on the Winogender occupations, read from the shared data folder: pass "
                "--data-dir ../shared/data (or set AUDIT_DATA_DIR)"
            )
        return None
    return load_probe_occupations(settings.data_dir)


def _prepare_stored_variants(plan: AuditPlan) -> None:
    """The variants already in the cache, prepared as local models (their fingerprints
    are known, so `audit plan` counts their cached scores)."""
    assert plan.variants is not None
    for job in plan.variants.jobs:
        if job.cached:
            stored = job.store.read()
            plan.stored_variants[job.model_id] = stored
            plan.models[job.model_id] = prepare_model(
                variant_spec(plan, job.model_id, stored), plan.settings
            )


def variant_spec(plan: AuditPlan, model_id: str, stored: StoredVariant) -> ModelSpec:
    """A trained variant as a local model, scored as its base is (dtype, device map,
    quantisation, precision check)."""
    base_id = plan.variant_bases()[model_id]
    base = plan.models[base_id]
    base_spec = next(m for m in plan.loaded.spec.models if m.id == base_id)
    return ModelSpec(
        id=model_id,
        source=PathSource(path=str(stored.model_dir)),
        type=base.model_type,  # type: ignore[arg-type]
        dtype=base_spec.dtype,
        precision_check=base_spec.precision_check,
        device_map=base_spec.device_map,
        quantization=base_spec.quantization,
        trust_remote_code=base_spec.trust_remote_code,
    )


def _plan_extrinsic_tasks(plan: AuditPlan) -> list[PlannedTask]:
    """Every extrinsic task with its data read (errors come here, before any training),
    over the spec's models and every planned variant but those whose method changes only
    the output distribution (Self-Debias: nothing to fine-tune), which each task leaves
    out with the reason."""
    from audit.extrinsic.planned import plan_extrinsic
    from audit.extrinsic.settings import OUTPUT_ONLY_REASON
    from audit.variants.catalog import output_only_variants

    variants_of: dict[str, list[str]] = {}
    for job in plan.variant_jobs:
        variants_of.setdefault(job.base, []).append(job.model_id)
    unfit = {
        model_id: OUTPUT_ONLY_REASON.format(method=method)
        for model_id, method in output_only_variants(plan.loaded.spec.variants).items()
    }
    return plan_extrinsic(
        plan.loaded.spec.extrinsic,
        model_types=plan.model_types,
        variants_of=variants_of,
        data_dir=plan.settings.data_dir,
        seed=plan.loaded.spec.seed,
        unfit=unfit,
    )
