"""The SEAT stage of a run (after scoring): each planned `seat` entry on each of its
models, with the results kept in `<cache>/seat/<key>.json`, so that a second run of the
same model, tests and options loads no model.

The key is the sha256 of everything that can change a number: the model's fingerprint
and precision, each test's name and file sha256, the pooling, n_samples, batch size, the
audit's seed and the measure's code identity (`audit.code_identity`: its card version and
distribution; nothing for the built-in `seat` at version 1). A model is loaded (as the
spec scores it) only when one of its entries is missing; a cache file that does not read
is computed again.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import TypeAdapter, ValidationError

from audit.atomic_write import write_text_atomic
from audit.code_identity import CodeIdentity, with_code
from audit.code_records import CodeRecords
from audit.results.seat import SeatBiasTypeRecord, SeatSection, SeatSkipRecord, SeatTestRecord

if TYPE_CHECKING:
    from audit.display import Display
    from audit.measures.seat_run import SeatTestResult
    from audit.models.loaded import LoadedModel
    from audit.models.prepared import ModelLoader, PreparedModel
    from audit.pipeline.seat_plan import SeatPlan, SeatRun
    from audit.pipeline.worker import RunModels

#: Raised when what a cache entry holds or how it is computed changes.
CACHE_VERSION = 1
_RECORDS = TypeAdapter(list[SeatTestRecord])


def seat_code(run: SeatRun) -> CodeIdentity:
    """The code that computes a `seat` entry: its measure's card version and origin."""
    from audit.measures.catalog import MEASURES

    return MEASURES.code_identity(run.measure.name)


def seat_cache_key(
    run: SeatRun, model: PreparedModel, seed: int, code: CodeIdentity | None = None
) -> str:
    """The content key of one `seat` entry on one model, as `code` computes it (default:
    the registered measure, `seat_code`)."""
    content = {
        "version": CACHE_VERSION,
        "fingerprint": model.fingerprint,
        "precision": model.precision,
        "tests": [[test.name, test.sha256] for test in run.tests],
        "pooling": run.options.pooling,
        "n_samples": run.options.n_samples,
        "batch_size": run.options.batch_size,
        "seed": seed,
    }
    keyed = with_code(content, code or seat_code(run))
    return hashlib.sha256(json.dumps(keyed, sort_keys=True).encode()).hexdigest()


def seat_records(cache_dir: Path) -> CodeRecords:
    """Which code made each cached SEAT result (`audit.code_records`)."""
    return CodeRecords(cache_dir / "seat")


def why_seat_missing(cache_dir: Path, run: SeatRun, model: PreparedModel, seed: int) -> str | None:
    """Why a `seat` entry's results on a model are computed again when the same entry's
    results made by other code are cached ("... version 1, now version 2"); else None."""
    code = seat_code(run)
    return seat_records(cache_dir).why_missing(
        seat_cache_key(run, model, seed, code.default()),
        seat_cache_key(run, model, seed, code),
        code,
        lambda key: cache_path(cache_dir, key).is_file(),
    )


def cache_path(cache_dir: Path, key: str) -> Path:
    return cache_dir / "seat" / f"{key}.json"


def seat_test_records(
    run: SeatRun, model_id: str, results: list[SeatTestResult]
) -> list[SeatTestRecord]:
    """The results of one entry on one model as results.json records."""
    sha = {test.name: test.sha256 for test in run.tests}
    return [
        SeatTestRecord(
            measure=run.measure,
            model=model_id,
            test=r.test,
            bias_type=r.bias_type,
            categories=list(r.categories),
            n_x=r.statistic.n_x,
            n_y=r.statistic.n_y,
            n_a=r.statistic.n_a,
            n_b=r.statistic.n_b,
            effect_size=r.statistic.effect_size,
            p_value=r.statistic.p_value,
            exact=r.statistic.exact,
            n_partitions=r.statistic.n_partitions,
            n_samples=run.options.n_samples,
            pooling=run.options.pooling,
            seed=r.seed,
            verified=r.verified,
            sha256=sha[r.test],
        )
        for r in results
    ]


def bias_type_records(records: list[SeatTestRecord]) -> list[SeatBiasTypeRecord]:
    """bias-bench's summary per entry, model and bias type: the mean |d| over its tests."""
    groups: dict[tuple[str, str, str], list[SeatTestRecord]] = {}
    measures = {}
    for record in records:
        if record.bias_type is not None:
            key = (record.measure.label, record.model, record.bias_type)
            groups.setdefault(key, []).append(record)
            measures[key] = record.measure
    summaries = []
    for key, mine in groups.items():
        sizes = [abs(r.effect_size) for r in mine if r.effect_size is not None]
        summaries.append(
            SeatBiasTypeRecord(
                measure=measures[key],
                model=key[1],
                bias_type=key[2],
                mean_abs_effect=sum(sizes) / len(sizes) if sizes else None,
                n_tests=len(mine),
            )
        )
    return summaries


def _cached(path: Path, run: SeatRun, model_id: str) -> list[SeatTestRecord] | None:
    if not path.is_file():
        return None
    try:
        stored = _RECORDS.validate_json(path.read_bytes())
    except (OSError, ValidationError):
        return None
    if [r.test for r in stored] != [t.name for t in run.tests]:
        return None
    return [r.model_copy(update={"measure": run.measure, "model": model_id}) for r in stored]


def run_seat_stage(
    plan: SeatPlan,
    models: RunModels,
    loader: ModelLoader,
    *,
    cache_dir: Path,
    seed: int,
    alpha: float,
    display: Display,
) -> SeatSection:
    """Every planned SEAT entry on each of its models (run order), from the cache where
    it can be."""
    from audit.measures.catalog import MEASURES
    from audit.measures.seat_run import SeatMeasure

    display.stage("seat")
    done: dict[tuple[int, str], list[SeatTestRecord]] = {}
    for model_id, model in models.items():
        loaded: LoadedModel | None = None
        for index, run in enumerate(plan.runs):
            if model_id not in run.models:
                continue
            code = seat_code(run)
            path = cache_path(cache_dir, seat_cache_key(run, model, seed, code))
            records = _cached(path, run, model_id)
            if records is None:
                if loaded is None:
                    loaded = loader.load(model)
                display.info(f"SEAT {run.measure.label} on {model_id}: {len(run.tests)} tests")
                measure = MEASURES.load(run.measure.name)
                if not isinstance(measure, SeatMeasure):
                    raise TypeError(f"measure '{run.measure.name}' is not a SEAT measure")
                results = measure.compute_seat(loaded, run.tests, run.options, seed=seed)
                records = seat_test_records(run, model_id, results)
                path.parent.mkdir(parents=True, exist_ok=True)
                write_text_atomic(path, _RECORDS.dump_json(records, indent=1).decode())
                default = seat_cache_key(run, model, seed, code.default())
                seat_records(cache_dir).remember(default, path.stem, code)
            done[(index, model_id)] = records
        del loaded
    tests = [
        record
        for index, run in enumerate(plan.runs)
        for model_id in models.ids()
        for record in done.get((index, model_id), [])
    ]
    skipped = [
        SeatSkipRecord(measure=run.measure, model=model_id, reason=reason)
        for run in plan.runs
        for model_id, reason in run.skipped
    ]
    return SeatSection(
        folder=str(plan.folder),
        alpha=alpha,
        tests=tests,
        bias_types=bias_type_records(tests),
        skipped=skipped,
    )
