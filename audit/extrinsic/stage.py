"""The extrinsic stage of a run: every task of the spec's `extrinsic:` list, fine-tuned
on each chosen model and variant (cached like a variant), measured, and its curve drawn
from the predictions kept at every K steps.

`plan_extrinsic` reads every task's data while the run is planned, so a missing file, a
model type a task cannot fine-tune or too few templates stop the run before anything
trains. `run_extrinsic` then fine-tunes what the cache lacks, one model load per
(task, model), measures each at the checkpoint its `finetune.checkpoint` rule chooses
(the best dev score by default; `head_kinds.choose_checkpoint`), and gives the
measurements (which the correlation study pairs with the intrinsic ones across models,
once the engine has made them `Measurement`s) and the records for results.json.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
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
from audit.extrinsic.settings import ExtrinsicSpec
from audit.extrinsic.tasks.base import ExtrinsicTask, Resampling, TaskContext, TaskData, TaskValue
from audit.ids import PluginId
from audit.results import ChosenCheckpoint, CurvePoint, ExtrinsicRecord

if TYPE_CHECKING:
    from audit.display import Display
    from audit.extrinsic.finetune.store import StoredFineTune
    from audit.extrinsic.finetune.task_head import TaskHead


@dataclass(frozen=True)
class PlannedTask:
    """One task of the spec with its data read and the models it runs on (in run order)."""

    spec: ExtrinsicSpec
    entry: ExtrinsicTaskEntry
    task: ExtrinsicTask
    options: Any
    data: TaskData
    models: tuple[str, ...]

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

    def cache_key(self, fingerprint: str, model_type: str, seed: int) -> str:
        """The fine-tuning's cache key on a model, computed without loading it."""
        from audit.extrinsic.finetune.store import planned_key

        return planned_key(
            self.task_head,
            model_fingerprint=fingerprint,
            model_type=model_type,  # type: ignore[arg-type]
            task=self.name,
            task_options=self.task_options(),
            settings=self.spec.finetune.with_seed(seed),
            train_rows=self.data.train,
            dev_rows=self.data.dev,
        )

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
) -> list[PlannedTask]:
    """Every task with its data read and checked. `model_types` holds every model and
    variant id (run order) with its type; `variants_of` a base id's variant ids."""
    planned: list[PlannedTask] = []
    for i, spec in enumerate(tasks):
        where = f"extrinsic[{i}] ({spec.task})"
        entry = EXTRINSIC_TASKS.entry(spec.task)
        if data_dir is None:
            raise AuditUserError(
                f"{where}: extrinsic tasks read their data from the shared data folder: pass "
                "--data-dir ../shared/data (or set AUDIT_DATA_DIR)"
            )
        chosen = _chosen_models(spec, model_types, variants_of)
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
        planned.append(PlannedTask(spec, entry, task, options, data, tuple(chosen)))
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
) -> list[ExtrinsicRecord]:
    """Fine-tune (or read from the cache) and measure every planned task on its models.
    `model_order` is the run's model order (variants right after their base); a model
    missing from it (a variant that was not trained) is left out."""
    resampling = Resampling(seed=seed, n_bootstrap=n_bootstrap, alpha=alpha)
    records: list[ExtrinsicRecord] = []
    for item in planned:
        for model_id in [m for m in model_order if m in item.models]:
            stored = _fine_tuned(item, model_id, load_model, cache_dir, seed, display)
            chosen = choose_checkpoint(item.head, stored.summary, item.spec.finetune.checkpoint)
            value = _measured(item, stored.point(chosen.step), resampling)
            records.append(_record(item, model_id, stored, value, seed, chosen))
    return records


def _measured(item: PlannedTask, predictions: Any, resampling: Resampling) -> TaskValue:
    """The task's metric on one set of predictions; it emits the entry's record type."""
    value = item.task.measure(predictions, item.data, resampling)
    if not isinstance(value.result, item.entry.result):
        raise TypeError(
            f"extrinsic task '{item.name}' gave a {type(value.result).__name__}; its entry "
            f"says it emits {item.entry.result.__name__}"
        )
    return value


def _fine_tuned(
    item: PlannedTask,
    model_id: str,
    load_model: LoadModel,
    cache_dir: Path,
    seed: int,
    display: Display,
) -> StoredFineTune:
    from audit.extrinsic.finetune.store import cached_finetune
    from audit.training.status import TrainingStatus

    loaded = load_model(model_id)
    settings = item.spec.finetune.with_seed(seed)
    key = f"extrinsic {item.name} {model_id}"
    label = f"fine-tuning {item.name} on {model_id}"
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
    display.info(f"{item.name} on {model_id}: fine-tuned model {how}")
    return stored


def _record(
    item: PlannedTask,
    model_id: str,
    stored: StoredFineTune,
    value: Any,
    seed: int,
    chosen: ChosenCheckpoint,
) -> ExtrinsicRecord:
    summary = stored.summary
    dev_at = {e.step: item.head.dev_value(e) for e in summary.evaluations}
    at_step = Resampling(seed=seed, n_bootstrap=0)  # a curve point has no interval
    curve = [
        CurvePoint(
            step=step,
            value=_measured(item, stored.point(step), at_step).value,
            dev=dev_at.get(step),
        )
        for step in stored.steps
    ]
    return ExtrinsicRecord(
        task=item.name,
        measure=item.measure_id,
        model=model_id,
        dataset=item.data.dataset,
        value=value.value,
        ci_low=value.ci_low,
        ci_high=value.ci_high,
        n=value.n,
        note=value.note,
        ideal_value=item.entry.card.ideal_value,
        dev_check=dev_check(item.head, chosen_evaluation(summary, chosen.step), item.data),
        chosen_checkpoint=chosen,
        curve=curve,
        finetune=summary,
        cached=stored.cached,
        key=stored.key,
        facts=dict(item.data.facts),
        detail=value.result,
    )
