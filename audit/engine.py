"""Runs a validated spec: datasets -> models -> plan -> scores -> measures -> results.

The engine reports progress to a Display and never prints. Scores go to the score cache
as they are computed; `scores.parquet` is written before any measure runs, so nothing
computed is lost if a later stage fails. A model's weights are loaded only when some of
its scores are missing from the cache.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit import __version__
from audit.display import Display
from audit.executor import Executor, InProcessExecutor, ModelWork, group_by_model, unit_record
from audit.ids import PluginId
from audit.plan import Plan, build_plan
from audit.results import (
    AuditInfo,
    AuditResult,
    BootstrapSettings,
    DatasetRecord,
    Measurement,
    ModelRecord,
    RobustnessSettings,
    UnitRecord,
)
from audit.scoring.cache import ModelIdentity, ScoreCache
from audit.spec.loader import LoadedSpec
from audit.spec.models import AuditSpec, GGUFSource, ModelSpec, PathSource
from audit.studies import StudySettings, run_studies

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


@dataclass(frozen=True)
class PreparedModel:
    """A model resolved to files, fingerprinted and typed, with no weights loaded."""

    spec: ModelSpec
    resolved: ResolvedModel
    model_type: str
    fingerprint: str
    device: str  # torch device string
    precision: str  # "<device type>/<dtype>", part of the score cache key


@dataclass
class Prepared:
    """A spec with its datasets read, models prepared and plan built."""

    loaded: LoadedSpec
    datasets: dict[str, LoadedDataset]
    models: dict[str, PreparedModel]
    plan: Plan
    timings: dict[str, float] = field(default_factory=dict)


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
    from audit.models.device import choose_autocast_dtype, choose_device
    from audit.models.fingerprint import fingerprint
    from audit.models.load import model_kind
    from audit.models.resolve import resolve_model

    resolved = resolve_model(spec, cache_dir=settings.cache_dir)
    device = choose_device(settings.device)
    autocast = choose_autocast_dtype(spec.dtype, device)
    dtype = str(autocast).removeprefix("torch.") if autocast is not None else "float32"
    return PreparedModel(
        spec=spec,
        resolved=resolved,
        model_type=model_kind(resolved, spec),
        fingerprint=fingerprint(resolved),
        device=str(device),
        precision=f"{device.type}/{dtype}",
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
        prepared = models[mspec.id]
        display.info(
            f"{mspec.id}: {prepared.model_type} LM, {prepared.resolved.source}, "
            f"fingerprint {prepared.fingerprint[:12]}"
        )
    timings["models"] = time.monotonic() - started
    plan = build_plan(spec, model_types={k: v.model_type for k, v in models.items()})
    return Prepared(loaded, datasets, models, plan, timings)


def run_audit(
    loaded: LoadedSpec,
    settings: RunSettings,
    display: Display,
    *,
    executor: Executor | None = None,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> RunOutcome:
    """Run the whole audit and write results.json and scores.parquet into out_dir."""
    prepared = prepare(loaded, settings, display)
    spec = loaded.spec
    cache = ScoreCache(settings.cache_dir)
    settings.out_dir.mkdir(parents=True, exist_ok=True)

    started = time.monotonic()
    display.stage("scoring")
    worker = _Worker(prepared, settings, cache, display)
    units = (executor or InProcessExecutor()).run(group_by_model(prepared.plan.units), worker)
    prepared.timings["scoring"] = time.monotonic() - started

    started = time.monotonic()
    scores = assemble_scores(prepared, cache)
    scores.to_parquet(settings.out_dir / "scores.parquet", index=False)
    prepared.timings["assemble_scores"] = time.monotonic() - started

    started = time.monotonic()
    display.stage("measures")
    measurements = compute_measurements(prepared, scores)
    measurements.extend(compute_corpus_measurements(prepared))
    prepared.timings["measures"] = time.monotonic() - started

    from audit.environment import describe_environment
    from audit.gates import evaluate_gates
    from audit.scoring.table import unit_frames

    started = time.monotonic()
    studies = run_studies(
        study_settings(spec), prepared.plan, unit_frames(scores), measurements, display
    )
    prepared.timings["studies"] = time.monotonic() - started

    devices = sorted({m.device for m in prepared.models.values()})
    result = AuditResult(
        tool_version=__version__,
        created_at=now(),
        audit=audit_info(loaded),
        spec=loaded.raw,
        plugins=used_plugin_cards(prepared),
        models=[_model_record(prepared.models[m.id], settings.cache_dir) for m in spec.models],
        datasets=[_dataset_record(prepared.datasets[d.name]) for d in spec.datasets],
        units=units,
        skipped_units=prepared.plan.skipped,
        measurements=measurements,
        gates=[gate.to_gate() for gate in spec.gates],
        robustness=studies.robustness,
        correlations=studies.correlations,
        comparisons=studies.comparisons,
        environment=describe_environment(", ".join(devices)),
        timings={k: round(v, 3) for k, v in prepared.timings.items()},
    )
    result = result.model_copy(update={"gate_verdicts": evaluate_gates(result)})
    result.write(settings.out_dir / "results.json")
    return RunOutcome(result=result, scores=scores, out_dir=settings.out_dir)


def study_settings(spec: AuditSpec) -> StudySettings:
    """What the cross-model studies take from the spec."""
    return StudySettings(
        model_order=[m.id for m in spec.models],
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
        from transformers.utils import logging as hf_logging

        from audit.models.load import load_model

        hf_logging.disable_progress_bar()
        key = f"load {model.spec.id}"
        started = time.monotonic()
        self.display.step(key, f"loading {model.spec.id} ({model.resolved.source})")
        try:
            with _quiet_gguf_conversion(model.resolved.is_gguf):
                loaded = load_model(
                    model.spec,
                    cache_dir=self.settings.cache_dir,
                    device=self.settings.device,
                    progress=lambda message: self.display.step(key, message),
                )
        except BaseException:
            self.display.end_step(key, f"loading {model.spec.id} failed")
            raise
        if loaded.fingerprint != model.fingerprint:
            raise RuntimeError(
                f"model '{model.spec.id}' changed on disk during the run "
                f"({model.fingerprint[:12]} -> {loaded.fingerprint[:12]}); run again"
            )
        facts = _facts_path(self.settings.cache_dir, model.fingerprint)
        facts.parent.mkdir(parents=True, exist_ok=True)
        facts.write_text(json.dumps({"n_parameters": loaded.n_parameters}))
        self.display.end_step(key, f"loaded {model.spec.id} in {time.monotonic() - started:.1f} s")
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


def _model_record(model: PreparedModel, cache_dir: Path) -> ModelRecord:
    facts_path = _facts_path(cache_dir, model.fingerprint)
    facts = json.loads(facts_path.read_text()) if facts_path.exists() else {}
    return ModelRecord(
        id=model.spec.id,
        source=model.resolved.source,
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
