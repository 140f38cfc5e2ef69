"""The plan of an audit, built once from a validated spec: its datasets read, its models
prepared, its training jobs (debiasing variants and bias-controlled models, extrinsic
task fine-tunes), its score units and measure tasks. `audit plan` prints it and `audit
run` executes it; neither plans again.

Each part is planned by a function of `audit.pipeline.plan_parts` (or `inputs`,
`audit.scoring_schedule`) from what it needs, and `plan_audit` assembles the parts once.
Every variant's id and type are known before it is trained, so its score units are
planned with the others. What only training gives (the trained folder, so the
fingerprint in its score cache keys and its fine-tunings' keys) is resolved when the
run reaches it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from audit.pipeline.inputs import prepare_models, read_datasets
from audit.pipeline.plan_parts import (
    PlannedVariants,
    plan_extrinsic_part,
    plan_lm_quality_part,
    plan_seat_part,
    plan_variant_part,
    run_model_types,
    variant_spec,
)
from audit.pipeline.steps import finetune_step, unit_line
from audit.pipeline.stopwatch import Stopwatch
from audit.scoring_schedule import ScoringSchedule, schedule_scoring

if TYPE_CHECKING:
    from audit.data.items import LoadedDataset
    from audit.display import Display
    from audit.extrinsic.planned import PlannedTask
    from audit.models.prepared import PreparedModel
    from audit.models.sources import ModelSpec
    from audit.pipeline.lm_quality import LmQualityPlan
    from audit.pipeline.seat_plan import SeatPlan
    from audit.pipeline.settings import RunSettings
    from audit.scoring.units import ScoreUnit
    from audit.scoring_schedule import CorpusTask, MeasureTask
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


@dataclass(frozen=True)
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
    scoring: ScoringSchedule
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

    def variant_spec(self, model_id: str, stored: StoredVariant) -> ModelSpec:
        """A trained variant as a local model, scored as its base is."""
        base = self.variant_bases()[model_id]
        return variant_spec(self.loaded, base, self.model_types[base], model_id, stored)

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


def plan_audit(loaded: LoadedSpec, settings: RunSettings, display: Display) -> AuditPlan:
    """Read the datasets, prepare the models (downloads, checksums, types), plan the
    training jobs (their data read: bad input stops here, before anything trains) and the
    score units and measures over every model, variants included; each part planned once,
    in this order, from the parts before it, and the plan assembled from them."""
    spec = loaded.spec
    watch = Stopwatch()
    datasets = watch.time("datasets", lambda: read_datasets(loaded, settings, display))
    bases = watch.time("models", lambda: prepare_models(loaded, settings, display))
    variants: PlannedVariants | None = None
    if spec.variants:
        variants = watch.time(
            "variant_planning", lambda: plan_variant_part(loaded, settings, bases)
        )
    jobs = None if variants is None else variants.jobs
    model_types = run_model_types(bases, jobs)
    lm_quality = None
    if jobs is not None:
        lm_quality = watch.time(
            "lm_quality_planning",
            lambda: plan_lm_quality_part(loaded, settings, jobs, model_types, datasets),
            kept=lambda part: part is not None,
        )
    extrinsic: list[PlannedTask] = []
    if spec.extrinsic:
        extrinsic = watch.time(
            "extrinsic_planning",
            lambda: plan_extrinsic_part(loaded, settings, jobs, model_types),
        )
    seat = plan_seat_part(loaded, settings, model_types)
    scoring = schedule_scoring(spec, model_types=model_types)
    return AuditPlan(
        loaded,
        settings,
        datasets,
        models=bases | ({} if variants is None else variants.prepared),
        model_order=tuple(model_types),
        model_types=model_types,
        scoring=scoring,
        variants=jobs,
        stored_variants={} if variants is None else dict(variants.stored),
        probe_occupations=None if variants is None else variants.probe_occupations,
        extrinsic=extrinsic,
        lm_quality=lm_quality,
        seat=seat,
        timings=watch.timings,
    )
