"""The extrinsic stage of a run: every task of the spec's `extrinsic:` list, fine-tuned
on each chosen model and variant (cached like a variant), measured, and its curve drawn
from the predictions kept at every K steps.

`plan_extrinsic` reads every task's data while the run is planned, so a missing file, a
model type a task cannot fine-tune or too few templates stop the run before anything
trains. `run_extrinsic` then fine-tunes what the cache lacks, one model load per
(task, model), and gives the measurements (which the correlation study pairs with the
intrinsic ones across models, once the engine has made them `Measurement`s) and the
records for results.json.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit.errors import AuditUserError
from audit.extrinsic.catalog import EXTRINSIC_TASKS, ExtrinsicTaskEntry
from audit.extrinsic.records import CurvePoint, DevCheck, ExtrinsicRecord
from audit.extrinsic.settings import ExtrinsicSpec
from audit.extrinsic.tasks.base import ExtrinsicTask, TaskContext, TaskData
from audit.ids import PluginId

if TYPE_CHECKING:
    from audit.display import Display
    from audit.extrinsic.finetune.records import FineTuneSummary
    from audit.extrinsic.finetune.store import StoredFineTune

#: The lowest STS-B dev Pearson counted as "learned the task". BERT-base reaches about
#: 0.88 after 3 epochs (Devlin et al. 2019); below 0.5 the predicted similarity is mostly
#: noise, and so would be its gender gap.
MIN_DEV_PEARSON = 0.5


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

    def cache_key(self, fingerprint: str, model_type: str, seed: int) -> str:
        """The fine-tuning's cache key on a model, computed without loading it."""
        from audit.extrinsic.finetune.store import classifier_key, regression_key

        common: dict[str, Any] = {
            "model_fingerprint": fingerprint,
            "model_type": model_type,
            "task": self.name,
            "task_options": self.task_options(),
            "settings": self.spec.finetune.with_seed(seed),
            "train_rows": self.data.train,
            "dev_rows": self.data.dev,
        }
        if self.data.kind == "regression":
            return regression_key(**common)
        return classifier_key(**common, labels=self.data.labels)

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
        try:
            data = task.prepare(options, TaskContext(data_dir=data_dir, seed=seed))
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
    records: list[ExtrinsicRecord] = []
    for item in planned:
        for model_id in [m for m in model_order if m in item.models]:
            stored = _fine_tuned(item, model_id, load_model, cache_dir, seed, display)
            value = item.task.measure(
                stored.point(stored.summary.steps),
                item.data,
                seed=seed,
                n_bootstrap=n_bootstrap,
                alpha=alpha,
            )
            records.append(_record(item, model_id, stored, value, seed))
    return records


def _fine_tuned(
    item: PlannedTask,
    model_id: str,
    load_model: LoadModel,
    cache_dir: Path,
    seed: int,
    display: Display,
) -> StoredFineTune:
    from audit.extrinsic.finetune.store import cached_classifier, cached_regression
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

    common: dict[str, Any] = {
        "task": item.name,
        "task_options": item.task_options(),
        "settings": settings,
        "cache_dir": cache_dir,
        "on_checkpoint": on_checkpoint,
        "progress": progress,
    }
    t0 = time.monotonic()
    if item.data.kind == "regression":
        stored = cached_regression(loaded, item.data.train, item.data.dev, **common)  # type: ignore[arg-type]
    else:
        stored = cached_classifier(
            loaded,
            item.data.train,  # type: ignore[arg-type]
            item.data.dev,  # type: ignore[arg-type]
            labels=item.data.labels,
            **common,
        )
    if started:
        display.finish(key)
    how = "read from the cache" if stored.cached else f"in {time.monotonic() - t0:.0f} s"
    display.info(f"{item.name} on {model_id}: fine-tuned model {how}")
    return stored


def _dev_check(summary: FineTuneSummary, data: TaskData) -> DevCheck | None:
    final = summary.final
    if final is None:
        return None
    if summary.kind == "regression":
        return DevCheck(
            metric="pearson",
            value=final.pearson,
            floor=MIN_DEV_PEARSON,
            floor_reason="below 0.5 the predicted similarity is mostly noise (BERT-base "
            "reaches about 0.88)",
            passed=final.pearson is not None and final.pearson >= MIN_DEV_PEARSON,
            n=final.n,
        )
    labels = [getattr(row, "label", None) for row in data.dev]
    majority = max(labels.count(x) for x in set(labels)) / len(labels) if labels else 0.0
    return DevCheck(
        metric="accuracy",
        value=final.accuracy,
        floor=majority,
        floor_reason="the share of the most frequent dev label (always guessing it)",
        passed=final.accuracy is not None and final.accuracy > majority,
        n=final.n,
    )


def _record(
    item: PlannedTask, model_id: str, stored: StoredFineTune, value: Any, seed: int
) -> ExtrinsicRecord:
    summary = stored.summary
    dev_at = {
        e.step: (e.pearson if summary.kind == "regression" else e.accuracy)
        for e in summary.evaluations
    }
    curve = [
        CurvePoint(
            step=step,
            value=item.task.measure(
                stored.point(step), item.data, seed=seed, n_bootstrap=0, alpha=0.05
            ).value,
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
        dev_check=_dev_check(summary, item.data),
        curve=curve,
        finetune=summary,
        cached=stored.cached,
        key=stored.key,
        facts=dict(item.data.facts),
        detail=value.result,
    )
