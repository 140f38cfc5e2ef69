"""Runs a validated spec: datasets -> models -> plan -> scores -> measures -> results.

The engine reports progress to a Display and never prints. Scores go to the score cache
as they are computed; `scores.parquet` is written before any measure runs, so nothing
computed is lost if a later stage fails.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit import __version__
from audit.display import Display
from audit.executor import Executor, InProcessExecutor, ModelWork, group_by_model
from audit.plan import Plan, build_plan
from audit.results import (
    AuditResult,
    DatasetRecord,
    Measurement,
    ModelRecord,
    UnitRecord,
)
from audit.scoring.cache import ScoreCache
from audit.spec.loader import LoadedSpec

if TYPE_CHECKING:
    import pandas as pd

    from audit.data.items import LoadedDataset
    from audit.models.resolve import ResolvedModel


@dataclass(frozen=True)
class RunSettings:
    """Where things go and what to run on; none of it changes a number."""

    out_dir: Path
    cache_dir: Path
    data_dir: Path | None = None
    device: str = "auto"


@dataclass
class Prepared:
    """A spec with its datasets read, models resolved (no weights loaded) and plan built."""

    loaded: LoadedSpec
    datasets: dict[str, LoadedDataset]
    resolved: dict[str, ResolvedModel]
    plan: Plan
    timings: dict[str, float] = field(default_factory=dict)


@dataclass
class RunOutcome:
    result: AuditResult
    scores: pd.DataFrame
    out_dir: Path


def prepare(loaded: LoadedSpec, settings: RunSettings, display: Display) -> Prepared:
    """Read datasets and resolve models (downloads, checksums, types), then plan."""
    from audit.data.loader import load_dataset
    from audit.models.resolve import resolve_model

    spec = loaded.spec
    timings: dict[str, float] = {}
    started = time.monotonic()
    display.stage("datasets")
    datasets: dict[str, LoadedDataset] = {}
    for dspec in spec.datasets:
        datasets[dspec.name] = load_dataset(
            dspec, data_dir=settings.data_dir, cache_dir=settings.cache_dir
        )
        ds = datasets[dspec.name]
        display.info(f"{ds.name}: {ds.rows_kept} items from {ds.source}")
    timings["datasets"] = time.monotonic() - started

    started = time.monotonic()
    display.stage("models")
    resolved: dict[str, ResolvedModel] = {}
    for mspec in spec.models:
        resolved[mspec.id] = resolve_model(mspec, cache_dir=settings.cache_dir)
        display.info(f"{mspec.id}: {resolved[mspec.id].model_type} LM")
    timings["resolve_models"] = time.monotonic() - started
    plan = build_plan(spec, model_types={k: v.model_type for k, v in resolved.items()})
    return Prepared(loaded, datasets, resolved, plan, timings)


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
    model_records: dict[str, ModelRecord] = {}
    worker = _Worker(prepared, settings, cache, display, model_records)
    units = (executor or InProcessExecutor()).run(group_by_model(prepared.plan.units), worker)
    prepared.timings["scoring"] = time.monotonic() - started

    started = time.monotonic()
    scores = assemble_scores(prepared, cache)
    scores.to_parquet(settings.out_dir / "scores.parquet", index=False)
    prepared.timings["assemble_scores"] = time.monotonic() - started

    started = time.monotonic()
    display.stage("measures")
    measurements = compute_measurements(prepared, scores)
    prepared.timings["measures"] = time.monotonic() - started

    from audit.environment import describe_environment

    device = next(iter(model_records.values())).device if model_records else "cpu"
    result = AuditResult(
        tool_version=__version__,
        created_at=now(),
        spec=loaded.raw,
        spec_path=str(loaded.path),
        spec_sha256=loaded.sha256,
        seed=spec.seed,
        alpha=spec.alpha,
        models=[model_records[m.id] for m in spec.models if m.id in model_records],
        datasets=[_dataset_record(prepared.datasets[d.name]) for d in spec.datasets],
        units=units,
        skipped_units=prepared.plan.skipped,
        measurements=measurements,
        environment=describe_environment(device),
        timings={k: round(v, 3) for k, v in prepared.timings.items()},
    )
    result.write(settings.out_dir / "results.json")
    return RunOutcome(result=result, scores=scores, out_dir=settings.out_dir)


@dataclass
class _Worker:
    """Loads one model and runs its units; records what the model was."""

    prepared: Prepared
    settings: RunSettings
    cache: ScoreCache
    display: Display
    model_records: dict[str, ModelRecord]

    def __call__(self, work: ModelWork) -> list[UnitRecord]:
        from audit.models.load import load_model
        from audit.scoring.runner import score_unit

        spec = next(m for m in self.prepared.loaded.spec.models if m.id == work.model)
        self.display.info(f"loading {work.model}")
        model = load_model(
            spec,
            resolved=self.prepared.resolved[work.model],
            device=self.settings.device,
        )
        self.model_records[work.model] = ModelRecord(
            id=work.model,
            source=self.prepared.resolved[work.model].describe(),
            model_type=model.model_type,
            fingerprint=model.fingerprint,
            n_parameters=sum(p.numel() for p in model.model.parameters()),
            device=str(model.device),
            precision=str(model.autocast_dtype).replace("torch.", "")
            if model.autocast_dtype
            else "float32",
        )
        records = [
            score_unit(
                unit,
                model=model,
                dataset=self.prepared.datasets[unit.dataset],
                cache=self.cache,
                display=self.display,
            )
            for unit in work.units
        ]
        del model
        return records


def assemble_scores(prepared: Prepared, cache: ScoreCache) -> pd.DataFrame:
    """The score table of every unit, read back from the cache, float64 scores."""
    import pandas as pd

    from audit.scoring.runner import unit_rows
    from audit.scoring.table import SCORE_COLUMNS

    rows: list[dict[str, Any]] = []
    for unit in prepared.plan.units:
        rows.extend(
            unit_rows(
                unit,
                dataset=prepared.datasets[unit.dataset],
                cache=cache,
                fingerprint=prepared.resolved[unit.model].fingerprint,
            )
        )
    frame = pd.DataFrame(rows, columns=list(SCORE_COLUMNS))
    frame["score"] = frame["score"].astype("float64")
    frame["toxicity"] = frame["toxicity"].astype("float64")
    frame["n_tokens"] = frame["n_tokens"].astype("int64")
    return frame


def compute_measurements(prepared: Prepared, scores: pd.DataFrame) -> list[Measurement]:
    """Every planned measure on its unit's scores."""
    from audit.measures.catalog import MEASURES
    from audit.scoring.catalog import scorer_info

    spec = prepared.loaded.spec
    out: list[Measurement] = []
    groups = dict(tuple(scores.groupby(["model", "dataset", "scorer"], sort=False)))
    for task in prepared.plan.measures:
        unit = task.unit
        frame = groups.get((unit.model, unit.dataset, unit.label))
        if frame is None:
            continue
        measure = MEASURES.get(task.measure)
        options = measure.options_model.model_validate(task.options)
        values = measure.compute(
            frame.reset_index(drop=True),
            scorer=scorer_info(unit.scorer),
            options=options,
            seed=spec.seed,
            n_bootstrap=spec.bootstrap,
        )
        for value in values:
            out.append(
                Measurement(
                    model=unit.model,
                    dataset=unit.dataset,
                    scorer=unit.label,
                    measure=task.label,
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
