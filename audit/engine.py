"""Runs a validated spec: datasets -> models -> plan -> scores -> measures -> results.

The engine reports progress to a Display and never prints. Scores go to the score cache
as they are computed; `scores.parquet` is written before any measure runs, so nothing
computed is lost if a later stage fails. A model's weights are loaded only when some of
its scores are missing from the cache.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit import __version__
from audit.display import Display
from audit.errors import AuditUserError
from audit.executor import (
    Executor,
    InProcessExecutor,
    ModelRequest,
    ModelWork,
    group_by_model,
    unit_record,
)
from audit.extrinsic.stage import PlannedTask
from audit.ids import PluginId
from audit.plan import Plan, build_plan
from audit.results import (
    AuditInfo,
    AuditResult,
    BootstrapSettings,
    CorpusRecord,
    DatasetRecord,
    ExtrinsicRecord,
    Measurement,
    MetaEvaluation,
    ModelRecord,
    RobustnessSettings,
    UnitRecord,
    VariantRecord,
)
from audit.scoring.cache import ModelIdentity, ScoreCache
from audit.spec.loader import LoadedSpec
from audit.spec.models import AuditSpec, GGUFSource, ModelSpec, PathSource
from audit.studies import StudySettings, run_studies
from audit.variants.cache import StoredVariant
from audit.variants.jobs import VariantJob, VariantPlan

if TYPE_CHECKING:
    import pandas as pd

    from audit.cards import PluginCard
    from audit.data.items import LoadedDataset
    from audit.models.resolved import ResolvedModel


@dataclass(frozen=True)
class RunSettings:
    """Where things go and what to run on; none of it changes a number."""

    out_dir: Path
    cache_dir: Path
    data_dir: Path | None = None
    device: str = "auto"
    stop_training_after: int | None = None  # test hook: interrupt each variant training


@dataclass(frozen=True)
class PreparedModel:
    """A model resolved to files, fingerprinted and typed, with no weights loaded."""

    spec: ModelSpec
    resolved: ResolvedModel
    model_type: str
    fingerprint: str
    device: str  # torch device string
    precision: str  # audit.models.precision: "cuda/bfloat16", ...; in the score cache key


@dataclass
class Prepared:
    """A spec with its datasets read, models prepared and plan built.

    `models` holds the base models and the variants already trained (in the cache), each
    variant right after its base; `variants` is the plan of every variant job (None when
    the spec has none). `run_audit` trains the missing variants and plans again.
    """

    loaded: LoadedSpec
    settings: RunSettings
    datasets: dict[str, LoadedDataset]
    models: dict[str, PreparedModel]
    plan: Plan
    timings: dict[str, float] = field(default_factory=dict)
    variants: VariantPlan | None = None
    trained: dict[str, StoredVariant] = field(default_factory=dict)
    trained_now: set[str] = field(default_factory=set)
    probe_occupations: list[str] | None = None
    extrinsic: list[PlannedTask] = field(default_factory=list)


@dataclass
class RunOutcome:
    result: AuditResult
    scores: pd.DataFrame
    out_dir: Path


def _spec_relative(loaded: LoadedSpec, spec: ModelSpec) -> ModelSpec:
    """Local model paths in a spec are relative to the spec file's folder."""
    source = spec.source
    if isinstance(source, PathSource):
        source = PathSource(path=str(loaded.resolve_path(source.path)))
    elif isinstance(source, GGUFSource):
        source = GGUFSource(gguf=str(loaded.resolve_path(source.gguf)))
    else:
        return spec
    return spec.model_copy(update={"source": source})


def prepare_model(spec: ModelSpec, settings: RunSettings) -> PreparedModel:
    from audit.models.device import choose_device
    from audit.models.fingerprint import fingerprint
    from audit.models.load import model_kind
    from audit.models.precision import model_precision
    from audit.models.resolve import resolve_model

    resolved = resolve_model(spec, cache_dir=settings.cache_dir)
    device = choose_device(settings.device)
    return PreparedModel(
        spec=spec,
        resolved=resolved,
        model_type=model_kind(resolved, spec),
        fingerprint=fingerprint(resolved),
        device=str(device),
        precision=model_precision(spec, device),
    )


def prepare(loaded: LoadedSpec, settings: RunSettings, display: Display) -> Prepared:
    """Read datasets and resolve models (downloads, checksums, types), then plan."""
    from audit.data.loader import load_dataset
    from audit.spec.dataset_request import dataset_request

    spec = loaded.spec
    timings: dict[str, float] = {}
    started = time.monotonic()
    display.stage("datasets")
    datasets: dict[str, LoadedDataset] = {}
    for dspec in spec.datasets:
        ds = load_dataset(
            dataset_request(dspec, loaded.path.parent),
            data_dir=settings.data_dir,
            cache_dir=settings.cache_dir,
        )
        datasets[dspec.name] = ds
        skipped = sum(ds.skipped.values())
        display.info(
            f"{ds.name}: {ds.rows_kept} items from {ds.source}"
            + (f" ({skipped} rows skipped: {ds.skipped})" if skipped else "")
        )
    timings["datasets"] = time.monotonic() - started

    started = time.monotonic()
    display.stage("models")
    models: dict[str, PreparedModel] = {}
    for mspec in spec.models:
        models[mspec.id] = prepare_model(_spec_relative(loaded, mspec), settings)
        model = models[mspec.id]
        display.info(
            f"{mspec.id}: {model.model_type} LM, {model.resolved.source}, "
            f"fingerprint {model.fingerprint[:12]}"
        )
    timings["models"] = time.monotonic() - started
    prepared = Prepared(loaded, settings, datasets, models, Plan(), timings)
    if spec.variants:
        started = time.monotonic()
        prepared.variants = plan_variant_jobs(prepared, settings)
        prepared.probe_occupations = probe_occupations(prepared.variants, settings)
        for job in prepared.variants.jobs:
            if job.cached:
                prepared.trained[job.model_id] = job.store.read()
        add_variant_models(prepared, settings)
        timings["variant_planning"] = time.monotonic() - started
    if spec.extrinsic:
        started = time.monotonic()
        prepared.extrinsic = plan_extrinsic_tasks(prepared, settings)
        timings["extrinsic_planning"] = time.monotonic() - started
    replan(prepared)
    return prepared


def plan_extrinsic_tasks(prepared: Prepared, settings: RunSettings) -> list[PlannedTask]:
    """Every extrinsic task with its data read (errors come here, before any training),
    over the spec's models and every planned variant."""
    from audit.extrinsic.stage import plan_extrinsic

    model_types = {model_id: m.model_type for model_id, m in prepared.models.items()}
    variants_of: dict[str, list[str]] = {}
    if prepared.variants is not None:
        for job in prepared.variants.jobs:
            model_types.setdefault(job.model_id, model_types[job.base])
            variants_of.setdefault(job.base, []).append(job.model_id)
    return plan_extrinsic(
        prepared.loaded.spec.extrinsic,
        model_types=model_types,
        variants_of=variants_of,
        data_dir=settings.data_dir,
        seed=prepared.loaded.spec.seed,
    )


def run_extrinsic_tasks(
    prepared: Prepared, settings: RunSettings, display: Display
) -> list[ExtrinsicRecord]:
    """Fine-tune and measure the planned extrinsic tasks on the run's models."""
    from audit.extrinsic.stage import run_extrinsic

    spec = prepared.loaded.spec
    display.stage("extrinsic")
    return run_extrinsic(
        prepared.extrinsic,
        load_model=lambda model_id: load_prepared_model(
            prepared.models[model_id], settings, display, float32=True
        ),
        cache_dir=settings.cache_dir,
        seed=spec.seed,
        n_bootstrap=spec.bootstrap,
        alpha=spec.alpha,
        display=display,
        model_order=list(prepared.models),
    )


def extrinsic_measurement(record: ExtrinsicRecord) -> Measurement:
    """An extrinsic record as a measurement: the task's value on its data, scored by the
    fine-tuned head (so the correlation study pairs it with the intrinsic measures)."""
    dev = record.dev_check
    return Measurement(
        model=record.model,
        dataset=record.dataset,
        scorer=PluginId.of("finetune", {"pooling": record.finetune.pooling}),
        measure=record.measure,
        value=record.value,
        ci_low=record.ci_low,
        ci_high=record.ci_high,
        n=record.n,
        status="ok" if record.value is not None else "undefined",
        note=record.note,
        details={
            "dev_metric": dev.metric if dev else None,
            "dev_value": dev.value if dev else None,
            "dev_passed": dev.passed if dev else None,
            "finetune_steps": record.finetune.steps,
        },
    )


def plan_variant_jobs(prepared: Prepared, settings: RunSettings) -> VariantPlan:
    """Every variant job, its corpus read and training data built (errors come here,
    before any training)."""
    from audit.variants.jobs import BaseModelFacts, plan_variants

    loaded = prepared.loaded
    bases = {
        model_id: BaseModelFacts(
            fingerprint=model.fingerprint,
            model_type=model.model_type,
            n_parameters=_known_parameters(settings.cache_dir, model.fingerprint),
        )
        for model_id, model in prepared.models.items()
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


def train_variants(
    prepared: Prepared, settings: RunSettings, display: Display, executor: Executor | None = None
) -> None:
    """Train the variants missing from the cache (where the executor runs work: in this
    process by default), then plan again with them."""
    assert prepared.variants is not None
    missing = [j for j in prepared.variants.jobs if j.model_id not in prepared.trained]
    if not missing:
        return
    display.stage("variants")
    worker = _Worker(prepared, settings, ScoreCache(settings.cache_dir), display)
    built = (executor or InProcessExecutor()).train(missing, worker)
    prepared.trained.update(built)
    prepared.trained_now.update(built)
    add_variant_models(prepared, settings)
    replan(prepared)


def add_variant_models(prepared: Prepared, settings: RunSettings) -> None:
    """Prepare every trained variant as a local model, each right after its base."""
    assert prepared.variants is not None
    spec_models = {m.id: m for m in prepared.loaded.spec.models}
    ordered: dict[str, PreparedModel] = {}
    for base_id, base in prepared.models.items():
        if base_id not in spec_models:
            continue  # a variant prepared earlier; placed again below
        ordered[base_id] = base
        for job in prepared.variants.of_base(base_id):
            stored = prepared.trained.get(job.model_id)
            if stored is None:
                continue
            existing = prepared.models.get(job.model_id)
            if existing is not None:
                ordered[job.model_id] = existing
                continue
            base_spec = spec_models[base_id]
            variant_spec = ModelSpec(
                id=job.model_id,
                source=PathSource(path=str(stored.model_dir)),
                type=base.model_type,  # type: ignore[arg-type]
                dtype=base_spec.dtype,
                precision_check=base_spec.precision_check,
                device_map=base_spec.device_map,
                quantization=base_spec.quantization,
                trust_remote_code=base_spec.trust_remote_code,
            )
            ordered[job.model_id] = prepare_model(variant_spec, settings)
    prepared.models = ordered


def replan(prepared: Prepared) -> None:
    """The plan over the prepared models (bases and trained variants), in their order."""
    prepared.plan = build_plan(
        prepared.loaded.spec,
        model_types={k: v.model_type for k, v in prepared.models.items()},
    )


def _known_parameters(cache_dir: Path, fingerprint: str) -> int | None:
    facts = _facts_path(cache_dir, fingerprint)
    if not facts.exists():
        return None
    value = json.loads(facts.read_text()).get("n_parameters")
    return int(value) if isinstance(value, int) else None


def run_audit(
    loaded: LoadedSpec,
    settings: RunSettings,
    display: Display,
    *,
    executor: Executor | None = None,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> RunOutcome:
    """Run the whole audit and write results.json and scores.parquet into out_dir."""
    from audit.cluster import executor_for

    executor = executor or executor_for(loaded.spec.execution)
    prepared = prepare(loaded, settings, display)
    spec = loaded.spec
    cache = ScoreCache(settings.cache_dir)
    settings.out_dir.mkdir(parents=True, exist_ok=True)
    if prepared.variants is not None:
        started = time.monotonic()
        train_variants(prepared, settings, display, executor)
        prepared.timings["variants"] = time.monotonic() - started

    started = time.monotonic()
    display.stage("scoring")
    worker = _Worker(prepared, settings, cache, display)
    units = executor.run(group_by_model(prepared.plan.units), worker)
    prepared.timings["scoring"] = time.monotonic() - started

    from audit.precision_check import run_precision_checks

    started = time.monotonic()
    precision_checks = run_precision_checks(
        prepared, cache, display, prepare=prepare_model, load=load_prepared_model
    )
    if precision_checks:
        prepared.timings["precision_check"] = time.monotonic() - started

    extrinsic: list[ExtrinsicRecord] = []
    if prepared.extrinsic:
        started = time.monotonic()
        extrinsic = run_extrinsic_tasks(prepared, settings, display)
        prepared.timings["extrinsic"] = time.monotonic() - started

    started = time.monotonic()
    scores = assemble_scores(prepared, cache)
    scores.to_parquet(settings.out_dir / "scores.parquet", index=False)
    prepared.timings["assemble_scores"] = time.monotonic() - started

    started = time.monotonic()
    display.stage("measures")
    measurements = compute_measurements(prepared, scores)
    measurements.extend(compute_corpus_measurements(prepared))
    measurements.extend(extrinsic_measurement(r) for r in extrinsic)
    prepared.timings["measures"] = time.monotonic() - started

    from audit.environment import describe_environment
    from audit.gates import evaluate_gates
    from audit.scoring.table import unit_frames

    started = time.monotonic()
    studies = run_studies(
        study_settings(spec, prepared), prepared.plan, unit_frames(scores), measurements, display
    )
    variant_results = variant_records(prepared, measurements)
    prepared.timings["studies"] = time.monotonic() - started

    devices = sorted({m.device for m in prepared.models.values()})
    result = AuditResult(
        tool_version=__version__,
        created_at=now(),
        audit=audit_info(loaded),
        spec=loaded.raw,
        plugins=used_plugin_cards(prepared),
        models=[
            _model_record(m, settings.cache_dir, _variant_source(prepared, model_id))
            for model_id, m in prepared.models.items()
        ],
        datasets=[_dataset_record(prepared.datasets[d.name]) for d in spec.datasets],
        units=units,
        skipped_units=prepared.plan.skipped,
        measurements=measurements,
        gates=[gate.to_gate() for gate in spec.gates],
        robustness=studies.robustness,
        correlations=studies.correlations,
        comparisons=studies.comparisons,
        variants=variant_results.variants,
        corpora=variant_results.corpora,
        meta_evaluations=variant_results.meta_evaluations,
        extrinsic=extrinsic,
        precision_checks=precision_checks,
        environment=describe_environment(", ".join(devices)),
        timings={k: round(v, 3) for k, v in prepared.timings.items()},
    )
    result = result.model_copy(update={"gate_verdicts": evaluate_gates(result)})
    result.write(settings.out_dir / "results.json")
    return RunOutcome(result=result, scores=scores, out_dir=settings.out_dir)


def study_settings(spec: AuditSpec, prepared: Prepared | None = None) -> StudySettings:
    """What the cross-model studies take from the spec (and, in a run, the prepared
    models: variants follow their base and are compared with it only)."""
    variants = prepared.variants if prepared is not None else None
    return StudySettings(
        model_order=[m.id for m in spec.models] if prepared is None else list(prepared.models),
        variant_bases={} if variants is None else {j.model_id: j.base for j in variants.jobs},
        seed=spec.seed,
        alpha=spec.alpha,
        bootstrap=spec.bootstrap,
        robustness=spec.robustness,
    )


def audit_info(loaded: LoadedSpec) -> AuditInfo:
    """What was audited, by whom, with which statistical settings (results.json `audit`)."""
    spec = loaded.spec
    robustness = spec.robustness
    return AuditInfo(
        name=spec.name,
        owner=spec.owner,
        description=spec.description,
        spec_path=str(loaded.path),
        spec_sha256=loaded.sha256,
        seed=spec.seed,
        alpha=spec.alpha,
        bootstrap=BootstrapSettings(resamples=spec.bootstrap, level=1 - spec.alpha),
        robustness=None
        if robustness is None
        else RobustnessSettings(
            rates=list(robustness.rates),
            repeats=robustness.repeats,
            agreement=robustness.agreement,
            seed=robustness.seed,
        ),
        report_formats=list(spec.report.formats),
    )


@dataclass
class VariantResults:
    variants: list[VariantRecord] = field(default_factory=list)
    corpora: list[CorpusRecord] = field(default_factory=list)
    meta_evaluations: list[MetaEvaluation] = field(default_factory=list)


def variant_records(prepared: Prepared, measurements: list[Measurement]) -> VariantResults:
    """The variants as trained, their corpora (Table 1) and the meta-evaluation of every
    bias_controlled entry."""
    from audit.variants.corpus_record import corpus_record
    from audit.variants.meta_evaluation import meta_evaluate
    from audit.variants.wordlists import load_gender_word_lists

    out = VariantResults()
    plan = prepared.variants
    if plan is None:
        return out
    spec = prepared.loaded.spec
    for job in plan.jobs:
        stored = prepared.trained[job.model_id]
        out.variants.append(
            VariantRecord(
                id=job.model_id,
                base=job.base,
                method=job.method,
                entry=job.entry,
                ratio=job.part.ratio,
                corpus=job.corpus.name,
                corpus_sha256=job.corpus.sha256,
                training_examples=job.data.n_examples(),
                training=job.training.model_dump(mode="json"),
                key=job.key,
                cached=job.model_id not in prepared.trained_now,
                summary=stored.summary,
                probe=stored.probe,
            )
        )
    data_dir = prepared.settings.data_dir
    if data_dir is not None:
        lists = load_gender_word_lists(data_dir)
        for sha, corpus in plan.corpora.items():
            out.corpora.append(
                corpus_record(
                    corpus,
                    lists,
                    seed=spec.seed,
                    n_bootstrap=spec.bootstrap,
                    alpha=spec.alpha,
                    used_by=plan.corpus_users[sha],
                )
            )
    probes = {v.id: v.probe for v in out.variants}
    entries: dict[str, list[VariantRecord]] = {}
    for record in out.variants:
        if record.method.name == "bias_controlled":
            entries.setdefault(record.entry, []).append(record)
    for entry, records in entries.items():
        out.meta_evaluations.append(
            meta_evaluate(
                entry=entry,
                base=records[0].base,
                ratio_models=[(r.ratio or 0.0, r.id) for r in records],
                measurements=measurements,
                probes=probes,
                seed=spec.seed,
                n_bootstrap=spec.bootstrap,
                alpha=spec.alpha,
            )
        )
    return out


def used_plugin_cards(prepared: Prepared) -> list[PluginCard]:
    """The cards of the built-in datasets, scorers and measures this run used, each kind
    in its registry's order (the report takes the first `headline` measure it finds)."""
    from audit.data.catalog import DATASETS
    from audit.measures.catalog import MEASURES
    from audit.scoring.catalog import SCORERS

    plan = prepared.plan
    datasets = set(prepared.datasets)
    scorers = {u.scorer.name for u in plan.units} | {s.scorer.name for s in plan.skipped}
    measures = {t.measure.name for t in plan.measures} | {
        t.measure.name for t in plan.corpus_measures
    }
    cards: list[PluginCard] = []
    for registry, used in ((DATASETS, datasets), (SCORERS, scorers), (MEASURES, measures)):
        cards.extend(e.card for e in registry.entries() if e.name in used)
    if prepared.variants is not None:
        from audit.variants.catalog import VARIANT_METHODS

        methods = {job.method.name for job in prepared.variants.jobs}
        cards.extend(e.card for e in VARIANT_METHODS.entries() if e.name in methods)
    if prepared.extrinsic:
        from audit.extrinsic.catalog import EXTRINSIC_TASKS

        tasks = {t.name for t in prepared.extrinsic}
        cards.extend(e.card for e in EXTRINSIC_TASKS.entries() if e.name in tasks)
    return cards


def _facts_path(cache_dir: Path, fingerprint: str) -> Path:
    return cache_dir / "models" / f"{fingerprint}.json"


@dataclass
class _Worker:
    """Runs one model's units; loads the model only if a unit has scores missing."""

    prepared: Prepared
    settings: RunSettings
    cache: ScoreCache
    display: Display

    def __call__(self, work: ModelWork) -> list[UnitRecord]:
        from audit.scoring.runner import ModelHandle, score_unit

        model = self.prepared.models[work.model]
        handle = ModelHandle(
            model_id=work.model,
            fingerprint=model.fingerprint,
            precision=model.precision,
            load=lambda: self._load(model),
        )
        records = [
            unit_record(
                score_unit(
                    unit,
                    model=handle,
                    dataset=self.prepared.datasets[unit.dataset],
                    cache=self.cache,
                    display=self.display,
                )
            )
            for unit in work.units
        ]
        handle.release()
        return records

    def _load(self, model: PreparedModel) -> Any:
        return load_prepared_model(model, self.settings, self.display)

    def train(self, jobs: Sequence[VariantJob]) -> dict[str, StoredVariant]:
        from audit.variants.build import build_variants

        def load_base(base_id: str) -> Any:
            # trained in float32, unquantised, whatever dtype the spec scores the model in
            model = self.prepared.models[base_id]
            return load_prepared_model(model, self.settings, self.display, float32=True)

        return build_variants(
            jobs,
            load_base=load_base,
            occupations=self.prepared.probe_occupations,
            display=self.display,
            stop_after=self.settings.stop_training_after,
        )

    def model_request(self, model_id: str, *, training: bool = False) -> ModelRequest:
        """The model as a worker elsewhere loads it; `training`: in float32 and
        unquantised, as `load_prepared_model(..., float32=True)` loads a base to train
        (so there is no precision to check)."""
        model = self.prepared.models[model_id]
        spec = model.spec
        if training:
            spec = spec.model_copy(update={"dtype": "float32", "quantization": None})
        local = isinstance(spec.source, PathSource | GGUFSource)
        resolved = model.resolved
        return ModelRequest(
            spec=spec,
            fingerprint=model.fingerprint,
            precision=None if training else model.precision,
            device=model.device,
            local_root=resolved.directory if local else None,
            local_files=tuple(p for r in sorted(resolved.files) for p in resolved.files[r])
            if local
            else (),
        )

    def dataset(self, name: str) -> LoadedDataset:
        return self.prepared.datasets[name]

    def probe_occupations(self) -> list[str] | None:
        return self.prepared.probe_occupations

    def model_loaded(self, model_id: str, n_parameters: int) -> None:
        facts = _facts_path(self.settings.cache_dir, self.prepared.models[model_id].fingerprint)
        facts.parent.mkdir(parents=True, exist_ok=True)
        facts.write_text(json.dumps({"n_parameters": n_parameters}))


def load_prepared_model(
    model: PreparedModel, settings: RunSettings, display: Display, *, float32: bool = False
) -> Any:
    """Load a prepared model's weights (with a spinner), checking its fingerprint.
    `float32`: in float32 and unquantised whatever the spec's dtype (for training)."""
    from transformers.utils import logging as hf_logging

    from audit.models.load import load_model

    hf_logging.disable_progress_bar()
    key = f"load {model.spec.id}"
    started = time.monotonic()
    display.step(key, f"loading {model.spec.id} ({model.resolved.source})")
    spec = model.spec
    if float32:
        spec = spec.model_copy(update={"dtype": "float32", "quantization": None})
    try:
        with _quiet_gguf_conversion(model.resolved.is_gguf):
            loaded = load_model(
                spec,
                cache_dir=settings.cache_dir,
                device=settings.device,
                progress=lambda message: display.step(key, message),
            )
    except BaseException:
        display.end_step(key, f"loading {model.spec.id} failed")
        raise
    if loaded.fingerprint != model.fingerprint:
        raise RuntimeError(
            f"model '{model.spec.id}' changed on disk during the run "
            f"({model.fingerprint[:12]} -> {loaded.fingerprint[:12]}); run again"
        )
    facts = _facts_path(settings.cache_dir, model.fingerprint)
    facts.parent.mkdir(parents=True, exist_ok=True)
    facts.write_text(json.dumps({"n_parameters": loaded.n_parameters}))
    display.end_step(key, f"loaded {model.spec.id} in {time.monotonic() - started:.1f} s")
    return loaded


@contextmanager
def _quiet_gguf_conversion(is_gguf: bool) -> Iterator[None]:
    """Silence transformers' own tqdm bar while it de-quantizes a GGUF file (the load
    step's spinner already says what is going on; a second bar would scroll the terminal)."""
    import functools

    if not is_gguf:
        yield
        return
    try:
        import transformers.modeling_gguf_pytorch_utils as module
    except ImportError:
        yield
        return
    bar = getattr(module, "tqdm", None)
    if bar is None:
        yield
        return
    module.tqdm = functools.partial(bar, disable=True)
    try:
        yield
    finally:
        module.tqdm = bar


def _variant_source(prepared: Prepared, model_id: str) -> str | None:
    """How results name a trained variant's source: its cache key, not the cache path."""
    if prepared.variants is None:
        return None
    job = next((j for j in prepared.variants.jobs if j.model_id == model_id), None)
    return None if job is None else f"variant:{job.key[:16]} ({job.method.label} of {job.base})"


def _model_record(model: PreparedModel, cache_dir: Path, source: str | None = None) -> ModelRecord:
    facts_path = _facts_path(cache_dir, model.fingerprint)
    facts = json.loads(facts_path.read_text()) if facts_path.exists() else {}
    return ModelRecord(
        id=model.spec.id,
        source=source or model.resolved.source,
        model_type=model.model_type,  # type: ignore[arg-type]
        fingerprint=model.fingerprint,
        n_parameters=facts.get("n_parameters"),
        device=model.device,
        precision=model.precision,
    )


def assemble_scores(prepared: Prepared, cache: ScoreCache) -> pd.DataFrame:
    """The score table of every unit, read back from the cache, float64 scores."""
    from audit.scoring.table import build_score_table

    return build_score_table(
        prepared.plan.units,
        datasets=prepared.datasets,
        cache=cache,
        models={k: ModelIdentity(m.fingerprint, m.precision) for k, m in prepared.models.items()},
    )


def compute_measurements(prepared: Prepared, scores: pd.DataFrame) -> list[Measurement]:
    """Every planned measure on its unit's scores."""
    from audit.measures.catalog import MEASURES, load_measure
    from audit.scoring.catalog import SCORERS
    from audit.scoring.table import unit_frames

    spec = prepared.loaded.spec
    out: list[Measurement] = []
    frames = unit_frames(scores)
    for task in prepared.plan.measures:
        unit = task.unit
        frame = frames.get((unit.model, unit.dataset, unit.scorer))
        if frame is None:
            continue
        values = load_measure(task.measure.name).compute(
            frame,
            scorer=SCORERS.entry(unit.scorer.name).info,
            options=MEASURES.entry(task.measure.name).options.model_validate(task.measure.options),
            seed=spec.seed,
            n_bootstrap=spec.bootstrap,
            alpha=spec.alpha,
        )
        out.extend(
            Measurement(
                model=unit.model,
                dataset=unit.dataset,
                scorer=unit.scorer,
                measure=task.measure,
                **value.model_dump(),
            )
            for value in values
        )
    return out


#: The scorer id of corpus measures (ILPS counts words; no model scores anything).
CORPUS_SCORER = PluginId.of("word-frequency")


def compute_corpus_measurements(prepared: Prepared) -> list[Measurement]:
    """Corpus measures (ILPS): once per audit, paths relative to the spec file."""
    from audit.measures.catalog import MEASURES, load_corpus_measure

    spec = prepared.loaded.spec
    out: list[Measurement] = []
    for task in prepared.plan.corpus_measures:
        options = dict(task.measure.options)
        for key in ("corpus", "male_words", "female_words"):
            if key in options:
                options[key] = str(prepared.loaded.resolve_path(str(options[key])))
        value = load_corpus_measure(task.measure.name).compute_corpus(
            options=MEASURES.entry(task.measure.name).options.model_validate(options),
            seed=spec.seed,
            n_bootstrap=spec.bootstrap,
            alpha=spec.alpha,
        )
        out.append(
            Measurement(
                model="corpus",
                dataset=Path(str(options.get("corpus", "corpus"))).name,
                scorer=CORPUS_SCORER,
                measure=task.measure,
                **value.model_dump(),
            )
        )
    return out


def _dataset_record(ds: LoadedDataset) -> DatasetRecord:
    from collections import Counter

    if ds.shape == "pairs":
        counts = Counter(item.bias_type for item in ds.pair_items())
    else:
        counts = Counter(g for item in ds.labelled_items() for g in item.groups)
    return DatasetRecord(
        name=ds.name,
        shape=ds.shape,
        source=ds.source,
        sha256=ds.sha256,
        rows_read=ds.rows_read,
        rows_kept=ds.rows_kept,
        skipped=ds.skipped,
        filtered=ds.filtered,
        groups=dict(sorted(counts.items())),
    )
