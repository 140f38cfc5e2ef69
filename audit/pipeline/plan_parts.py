"""The parts of the audit plan, each planned by a function of what it needs that returns
its part (`audit.pipeline.audit_plan.plan_audit` assembles them once): the variants (their
jobs, the probe's occupations, those already in the cache prepared as models), the run's
models in order with their types, the held-out text of the language-modelling cost, the
extrinsic tasks and SEAT."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from audit.errors import AuditUserError
from audit.extrinsic.planned import PlannedTask, plan_extrinsic
from audit.extrinsic.settings import OUTPUT_ONLY_REASON
from audit.models.prepared import PreparedModel, known_parameters, prepare_model
from audit.models.sources import ModelSpec, PathSource
from audit.pipeline.lm_quality import LmQualityPlan, plan_lm_quality
from audit.pipeline.seat_plan import SeatPlan, plan_seat
from audit.variants.catalog import output_only_variants
from audit.variants.jobs import BaseModelFacts, VariantPlan, plan_variants
from audit.variants.probe import load_probe_occupations

if TYPE_CHECKING:
    from audit.data.items import LoadedDataset
    from audit.pipeline.settings import RunSettings
    from audit.spec.loader import LoadedSpec
    from audit.variants.cache import StoredVariant


@dataclass(frozen=True)
class PlannedVariants:
    """The variant part of the plan: every job (its corpus read, its training data built),
    the he/she probe's occupations, and the variants already in the cache, as stored and
    prepared as local models (their fingerprints are known, so `audit plan` counts their
    cached scores)."""

    jobs: VariantPlan
    probe_occupations: list[str] | None
    stored: dict[str, StoredVariant]
    prepared: dict[str, PreparedModel]


def plan_variant_part(
    loaded: LoadedSpec, settings: RunSettings, models: Mapping[str, PreparedModel]
) -> PlannedVariants:
    """The spec's variants over the prepared base models (`models`)."""
    jobs = _variant_jobs(loaded, settings, models)
    occupations = probe_occupations(jobs, settings)
    stored: dict[str, StoredVariant] = {}
    prepared: dict[str, PreparedModel] = {}
    for job in jobs.jobs:
        if job.cached:
            stored[job.model_id] = job.store.read()
            base_type = models[job.base].model_type
            spec = variant_spec(loaded, job.base, base_type, job.model_id, stored[job.model_id])
            prepared[job.model_id] = prepare_model(spec, settings).with_chats_of(models[job.base])
    return PlannedVariants(jobs, occupations, stored, prepared)


def run_model_types(
    models: Mapping[str, PreparedModel], variants: VariantPlan | None
) -> dict[str, str]:
    """Every model the run scores with its type, in run order: the spec's models, each
    followed by its variants (a variant has its base's type)."""
    types: dict[str, str] = {}
    for model_id, model in models.items():
        types[model_id] = model.model_type
        jobs = [] if variants is None else variants.of_base(model_id)
        types |= {job.model_id: model.model_type for job in jobs}
    return types


def _variant_jobs(
    loaded: LoadedSpec, settings: RunSettings, models: Mapping[str, PreparedModel]
) -> VariantPlan:
    """Every variant job, its corpus read and training data built."""
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


def variant_spec(
    loaded: LoadedSpec, base_id: str, base_type: str, model_id: str, stored: StoredVariant
) -> ModelSpec:
    """A trained variant as a local model, scored as its base (`base_id`, of type
    `base_type`) is: dtype, device map, quantisation, precision check."""
    base_spec = next(m for m in loaded.spec.models if m.id == base_id)
    return ModelSpec(
        id=model_id,
        source=PathSource(path=str(stored.model_dir)),
        type=base_type,  # type: ignore[arg-type]
        dtype=base_spec.dtype,
        precision_check=base_spec.precision_check,
        device_map=base_spec.device_map,
        quantization=base_spec.quantization,
        trust_remote_code=base_spec.trust_remote_code,
    )


def plan_lm_quality_part(
    loaded: LoadedSpec,
    settings: RunSettings,
    variants: VariantPlan,
    model_types: Mapping[str, str],
    datasets: Mapping[str, LoadedDataset],
) -> LmQualityPlan | None:
    """The held-out text and its score units over each base with variants and its
    variants (the variants' language-modelling cost)."""
    spec = loaded.spec
    return plan_lm_quality(
        spec.lm_quality,
        variants,
        model_types=model_types,
        dataset_names=datasets,
        data_dir=settings.data_dir,
        base_dir=loaded.path.parent,
        seed=spec.seed,
    )


def plan_extrinsic_part(
    loaded: LoadedSpec,
    settings: RunSettings,
    variants: VariantPlan | None,
    model_types: Mapping[str, str],
) -> list[PlannedTask]:
    """Every extrinsic task with its data read (errors come here, before any training),
    over the spec's models and every planned variant but those whose method changes only
    the output distribution (Self-Debias: nothing to fine-tune), which each task leaves
    out with the reason."""
    variants_of: dict[str, list[str]] = {}
    for job in [] if variants is None else variants.jobs:
        variants_of.setdefault(job.base, []).append(job.model_id)
    unfit = {
        model_id: OUTPUT_ONLY_REASON.format(method=method)
        for model_id, method in output_only_variants(loaded.spec.variants).items()
    }
    return plan_extrinsic(
        loaded.spec.extrinsic,
        model_types=model_types,
        variants_of=variants_of,
        data_dir=settings.data_dir,
        seed=loaded.spec.seed,
        unfit=unfit,
    )


def plan_seat_part(
    loaded: LoadedSpec, settings: RunSettings, model_types: Mapping[str, str]
) -> SeatPlan | None:
    """The spec's `seat` entries with their test files read from `<data dir>/seat/` (a
    missing folder stops the run here) over every model, variants included."""
    return plan_seat(loaded.spec, data_dir=settings.data_dir, model_types=model_types)
