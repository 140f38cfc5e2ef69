"""The extrinsic stage of a run: every task of the spec's `extrinsic:` list, fine-tuned
on each chosen model and variant (cached like a variant), measured, and its curve drawn
from the predictions kept at every K steps.

`plan_extrinsic` reads every task's data while the run is planned, so a missing file, a
model type a task cannot fine-tune or too few templates stop the run before anything
trains; it leaves out the models it cannot fine-tune by design (a variant whose method
changes only the output distribution, Self-Debias), each with its reason.
`run_extrinsic` then fine-tunes what the cache lacks, one model load per (task, model)
and `finetune.seeds` fine-tunings on it (seeds s, s+1, ...), measures each at the
checkpoint its `finetune.checkpoint` rule chooses (the best dev score by default;
`head_kinds.choose_checkpoint`), and gives the records for results.json (with several
seeds, their mean: `audit.extrinsic.seeds`) and, in memory only, each record's value on
resamples of the task's evaluation items (`ExtrinsicOutcome.replicates`, the same draws
for every model and seed), which the correlation study's bootstrap across models reads.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit.data.catalog import TASK_DATASETS
from audit.errors import AuditUserError
from audit.extrinsic.catalog import EXTRINSIC_TASKS, ExtrinsicTaskEntry
from audit.extrinsic.head_kinds import (
    HEAD_KINDS,
    HeadKindRules,
    choose_checkpoint,
    chosen_evaluation,
    dev_check,
    task_head,
)
from audit.extrinsic.seeds import SeedRun, combine_seeds
from audit.extrinsic.settings import ExtrinsicSpec
from audit.extrinsic.tasks.base import (
    ExtrinsicTask,
    Resampling,
    TaskContext,
    TaskData,
    TaskValue,
    task_replicates,
)
from audit.ids import PluginId
from audit.results import CurvePoint, ExtrinsicRecord

if TYPE_CHECKING:
    import numpy as np

    from audit.display import Display
    from audit.extrinsic.finetune.store import StoredFineTune
    from audit.extrinsic.finetune.task_head import TaskHead

#: An extrinsic record's replicates' key: (measure key, dataset, model), as
#: `(record.measure.key, record.dataset, record.model)`.
ReplicateKey = tuple[tuple[str, str], str, str]


@dataclass(frozen=True)
class PlannedTask:
    """One task of the spec with its data read and the models it runs on (in run order)."""

    spec: ExtrinsicSpec
    entry: ExtrinsicTaskEntry
    task: ExtrinsicTask
    options: Any
    data: TaskData
    models: tuple[str, ...]
    #: The models the task leaves out by design, each with the reason (run order).
    left_out: tuple[tuple[str, str], ...] = ()

    @property
    def name(self) -> str:
        return self.spec.task

    @property
    def measure_id(self) -> PluginId:
        return PluginId.of(self.name, self.spec.options)

    @property
    def head(self) -> HeadKindRules:
        """What the stage does with the entry's head kind (its dev check)."""
        return HEAD_KINDS[self.entry.head]

    @property
    def task_head(self) -> TaskHead:
        """The head fine-tuned: the task's own, else the built-in head of its kind."""
        return task_head(self.entry.head, self.data)

    def seeds(self, spec_seed: int) -> tuple[int, ...]:
        """The seeds of a model's fine-tunings (`finetune.seeds` of them, from
        `finetune.seed`, else the spec's seed)."""
        return self.spec.finetune.seed_list(spec_seed)

    def cache_key(self, fingerprint: str, model_type: str, seed: int) -> str:
        """The cache key of the fine-tuning with `seed` (one of `seeds`) on a model,
        computed without loading it."""
        from audit.extrinsic.finetune.store import planned_key

        return planned_key(
            self.task_head,
            model_fingerprint=fingerprint,
            model_type=model_type,  # type: ignore[arg-type]
            task=self.name,
            task_options=self.task_options(),
            settings=self.spec.finetune.for_seed(seed),
            train_rows=self.data.train,
            dev_rows=self.data.dev,
        )

    def cache_keys(
        self, fingerprint: str, model_type: str, spec_seed: int
    ) -> list[tuple[int, str]]:
        """Each seed of a model's fine-tunings with its cache key."""
        return [(s, self.cache_key(fingerprint, model_type, s)) for s in self.seeds(spec_seed)]

    def total_steps(self) -> int:
        return self.spec.finetune.total_steps(len(self.data.train))

    def task_options(self) -> dict[str, Any]:
        """What goes into the fine-tuning's cache key: the options as used, and the hash of
        the evaluation inputs (the curve points are predictions on them)."""
        return {
            "options": self.options.model_dump(mode="json"),
            "evaluation_sha256": self.data.evaluation_sha256,
        }


def plan_extrinsic(
    tasks: Sequence[ExtrinsicSpec],
    *,
    model_types: Mapping[str, str],
    variants_of: Mapping[str, Sequence[str]],
    data_dir: Path | None,
    seed: int,
    unfit: Mapping[str, str] | None = None,
) -> list[PlannedTask]:
    """Every task with its data read and checked. `model_types` holds every model and
    variant id (run order) with its type; `variants_of` a base id's variant ids;
    `unfit` the models no task can fine-tune, each with the reason (a Self-Debias
    variant): a task leaves them out, and says so (`PlannedTask.left_out`)."""
    unfit = unfit or {}
    planned: list[PlannedTask] = []
    for i, spec in enumerate(tasks):
        where = f"extrinsic[{i}] ({spec.task})"
        entry = EXTRINSIC_TASKS.entry(spec.task)
        if data_dir is None:
            raise AuditUserError(
                f"{where}: extrinsic tasks read their data from the shared data folder: pass "
                "--data-dir ../shared/data (or set AUDIT_DATA_DIR)"
            )
        wanted = _chosen_models(spec, model_types, variants_of)
        chosen = [m for m in wanted if m not in unfit]
        left_out = tuple((m, unfit[m]) for m in wanted if m in unfit)
        for model_id in chosen:
            if model_types[model_id] not in entry.model_types:
                raise AuditUserError(
                    f"{where}: model '{model_id}' is a {model_types[model_id]} LM; task "
                    f"'{spec.task}' fine-tunes {' and '.join(sorted(entry.model_types))} LMs "
                    "only: leave the model out with `models:`"
                )
            spec.finetune.pooling_for(model_types[model_id])  # type: ignore[arg-type]
        options = EXTRINSIC_TASKS.options_of(spec.task, spec.options)
        task: ExtrinsicTask = EXTRINSIC_TASKS.load(spec.task)
        context = TaskContext(
            data_dir=data_dir,
            seed=seed,
            training=TASK_DATASETS.entry(entry.training).name,
            evaluation=TASK_DATASETS.entry(entry.dataset).name,
        )
        try:
            data = task.prepare(options, context)
            task_head(entry.head, data)  # a task's own head of another kind stops the run
        except AuditUserError as error:
            raise type(error)(f"{where}: {error}") from error
        planned.append(PlannedTask(spec, entry, task, options, data, tuple(chosen), left_out))
    return planned


def _chosen_models(
    spec: ExtrinsicSpec,
    model_types: Mapping[str, str],
    variants_of: Mapping[str, Sequence[str]],
) -> list[str]:
    if spec.models is None:
        return list(model_types)
    wanted: set[str] = set()
    for model_id in spec.models:
        wanted.add(model_id)
        wanted.update(variants_of.get(model_id, ()))
    return [m for m in model_types if m in wanted]


LoadModel = Callable[[str], Any]


@dataclass(frozen=True)
class ExtrinsicOutcome:
    """What the stage gives: the records for results.json, and, in memory only, the
    replicates of each record's value under resampling of its task's evaluation items
    (`n_bootstrap` each, shape (n_bootstrap,); with several seeds the mean over the kept
    seeds, as the value), keyed by `(record.measure.key, record.dataset, record.model)`.
    The draws come from the audit's seed and the task only, so replicate b of every model
    and seed of a task is over the same items. A record whose task gives no replicates
    (a plug-in without `replicates`, `bootstrap: 0`, an undefined value) has none."""

    records: list[ExtrinsicRecord]
    replicates: dict[ReplicateKey, np.ndarray]
    #: Each counted seed's own replicates (the seeds the value is the mean of; one array
    #: for one seed), for a comparison that resamples the seeds as well as the items.
    seed_replicates: dict[ReplicateKey, list[np.ndarray]] = field(default_factory=dict)


def run_extrinsic(
    planned: Sequence[PlannedTask],
    *,
    load_model: LoadModel,
    cache_dir: Path,
    seed: int,
    n_bootstrap: int,
    alpha: float,
    display: Display,
    model_order: Sequence[str],
) -> ExtrinsicOutcome:
    """Fine-tune (or read from the cache) and measure every planned task on its models,
    each with its `finetune.seeds` seeds. `model_order` is the run's model order
    (variants right after their base); a model missing from it (a variant that was not
    trained) is left out."""
    resampling = Resampling(seed=seed, n_bootstrap=n_bootstrap, alpha=alpha)
    outcome = ExtrinsicOutcome([], {}, {})
    for item in planned:
        for model_id in [m for m in model_order if m in item.models]:
            loaded = load_model(model_id)
            seeds = item.seeds(seed)
            runs = [
                _seed_run(item, model_id, loaded, s, len(seeds) > 1, cache_dir, resampling, display)
                for s in seeds
            ]
            record, replicates = _record(item, model_id, runs, resampling)
            outcome.records.append(record)
            key = (record.measure.key, record.dataset, record.model)
            if replicates is not None:
                outcome.replicates[key] = replicates
            counted = [r for r in runs if r.passed] or list(runs)
            if all(r.replicates is not None for r in counted):
                outcome.seed_replicates[key] = [
                    r.replicates.values for r in counted if r.replicates is not None
                ]
    return outcome


def _measured(item: PlannedTask, predictions: Any, resampling: Resampling) -> TaskValue:
    """The task's metric on one set of predictions; it emits the entry's record type."""
    value = item.task.measure(predictions, item.data, resampling)
    if not isinstance(value.result, item.entry.result):
        raise TypeError(
            f"extrinsic task '{item.name}' gave a {type(value.result).__name__}; its entry "
            f"says it emits {item.entry.result.__name__}"
        )
    return value


def _seed_run(
    item: PlannedTask,
    model_id: str,
    loaded: Any,
    seed: int,
    several: bool,
    cache_dir: Path,
    resampling: Resampling,
    display: Display,
) -> SeedRun:
    """One seed's fine-tuning (or the cached one) measured at its chosen checkpoint, with
    its dev check, curve and item replicates."""
    stored = _fine_tuned(item, model_id, loaded, seed, several, cache_dir, display)
    summary = stored.summary
    chosen = choose_checkpoint(item.head, summary, item.spec.finetune.checkpoint)
    predictions = stored.point(chosen.step)
    return SeedRun(
        seed=seed,
        summary=summary,
        key=stored.key,
        cached=stored.cached,
        chosen=chosen,
        value=_measured(item, predictions, resampling),
        dev_check=dev_check(item.head, chosen_evaluation(summary, chosen.step), item.data),
        curve=_curve(item, stored, resampling.seed),
        replicates=task_replicates(item.task, predictions, item.data, resampling),
    )


def _fine_tuned(
    item: PlannedTask,
    model_id: str,
    loaded: Any,
    seed: int,
    several: bool,
    cache_dir: Path,
    display: Display,
) -> StoredFineTune:
    from audit.extrinsic.finetune.store import cached_finetune
    from audit.training.status import TrainingStatus

    settings = item.spec.finetune.for_seed(seed)
    which = f" (seed {seed})" if several else ""
    key = f"extrinsic {item.name} {model_id}{which}"
    label = f"fine-tuning {item.name} on {model_id}{which}"
    started = False

    def progress(status: TrainingStatus) -> None:
        nonlocal started
        if not started:
            resumed = f" (resumed at {status.resumed_from})" if status.resumed_from else ""
            display.start(key, label + resumed, status.total)
            display.advance(key, status.step)
            started = True
        else:
            display.advance(key, 1)
        display.relabel(key, f"{label}: loss {status.loss:.3f}")

    def on_checkpoint(step: int, model: Any) -> dict[str, Any]:
        return item.task.predict(model, item.data)

    t0 = time.monotonic()
    stored = cached_finetune(
        loaded,
        item.task_head,
        item.data.train,
        item.data.dev,
        task=item.name,
        task_options=item.task_options(),
        settings=settings,
        cache_dir=cache_dir,
        on_checkpoint=on_checkpoint,
        progress=progress,
    )
    if started:
        display.finish(key)
    how = "read from the cache" if stored.cached else f"in {time.monotonic() - t0:.0f} s"
    display.info(f"{item.name} on {model_id}{which}: fine-tuned model {how}")
    return stored


def _curve(item: PlannedTask, stored: StoredFineTune, seed: int) -> list[CurvePoint]:
    """The task's value and the dev score at every curve step (no interval)."""
    dev_at = {e.step: item.head.dev_value(e) for e in stored.summary.evaluations}
    at_step = Resampling(seed=seed, n_bootstrap=0)
    return [
        CurvePoint(
            step=step,
            value=_measured(item, stored.point(step), at_step).value,
            dev=dev_at.get(step),
        )
        for step in stored.steps
    ]


def _record(
    item: PlannedTask, model_id: str, runs: Sequence[SeedRun], resampling: Resampling
) -> tuple[ExtrinsicRecord, np.ndarray | None]:
    """The record of a task on a model and its value's replicates: one seed's own
    numbers, or the mean of several (`combine_seeds`)."""
    common: dict[str, Any] = {
        "task": item.name,
        "measure": item.measure_id,
        "model": model_id,
        "dataset": item.data.dataset,
        "ideal_value": item.entry.card.ideal_value,
        "facts": dict(item.data.facts),
    }
    if len(runs) == 1:
        (run,) = runs
        record = ExtrinsicRecord(
            **common,
            value=run.value.value,
            ci_low=run.value.ci_low,
            ci_high=run.value.ci_high,
            n=run.value.n,
            note=run.value.note,
            dev_check=run.dev_check,
            chosen_checkpoint=run.chosen,
            curve=run.curve,
            finetune=run.summary,
            cached=run.cached,
            key=run.key,
            detail=_plug_in_or_built_in(run.value),
        )
        return record, None if run.replicates is None else run.replicates.values
    mean = combine_seeds(runs, alpha=resampling.alpha, n_bootstrap=resampling.n_bootstrap)
    record = ExtrinsicRecord(
        **common,
        value=mean.value,
        ci_low=mean.ci_low,
        ci_high=mean.ci_high,
        n=mean.first.value.n,
        note=mean.note,
        dev_check=mean.dev_check,
        chosen_checkpoint=None,
        curve=mean.curve,
        finetune=mean.first.summary,
        cached=all(r.cached for r in runs),
        key=mean.first.key,
        detail=_plug_in_or_built_in(mean.first.value),
        seeds=mean.seeds,
        seed_sd=mean.seed_sd,
        seed_min=mean.seed_min,
        seed_max=mean.seed_max,
    )
    return record, mean.replicates


def _plug_in_or_built_in(value: TaskValue) -> Any:
    """A task's result record, which `ExtrinsicRecord.detail` keeps as a built-in's type
    or a plug-in's JSON fields (its validator decides)."""
    return value.result
