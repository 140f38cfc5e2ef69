"""One seed's fine-tuning of a planned extrinsic task on one model (`seed_run`): the
cached fine-tuning (or a new one, with its progress on the display and the task's
predictions kept at every K steps), measured at the checkpoint its `finetune.checkpoint`
rule chooses (`head_kinds.choose_checkpoint`), with its dev check, curve and the value's
replicates over the task's evaluation items.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit.extrinsic.head_kinds import choose_checkpoint, chosen_evaluation, dev_check
from audit.extrinsic.planned import PlannedTask
from audit.extrinsic.seeds import SeedRun
from audit.extrinsic.tasks.base import Resampling, TaskValue, task_replicates
from audit.results import CurvePoint

if TYPE_CHECKING:
    from audit.display import Display
    from audit.extrinsic.finetune.store import StoredFineTune


def measured(item: PlannedTask, predictions: Any, resampling: Resampling) -> TaskValue:
    """The task's metric on one set of predictions; it emits the entry's record type."""
    value = item.task.measure(predictions, item.data, resampling)
    if not isinstance(value.result, item.entry.result):
        raise TypeError(
            f"extrinsic task '{item.name}' gave a {type(value.result).__name__}; its entry "
            f"says it emits {item.entry.result.__name__}"
        )
    return value


@dataclass(frozen=True)
class SeedJob:
    """One fine-tuning of a planned task: the task, the model (its id and the loaded
    model) and the seed; `several`: the task has more than one seed, so what the display
    and the log say names it."""

    item: PlannedTask
    model_id: str
    loaded: Any
    seed: int
    several: bool


def seed_run(job: SeedJob, cache_dir: Path, resampling: Resampling, display: Display) -> SeedRun:
    """One seed's fine-tuning (or the cached one) measured at its chosen checkpoint, with
    its dev check, curve and item replicates."""
    item = job.item
    stored = _fine_tuned(job, cache_dir, display)
    summary = stored.summary
    chosen = choose_checkpoint(item.head, summary, item.spec.finetune.checkpoint)
    predictions = stored.point(chosen.step)
    return SeedRun(
        seed=job.seed,
        summary=summary,
        key=stored.key,
        cached=stored.cached,
        chosen=chosen,
        value=measured(item, predictions, resampling),
        dev_check=dev_check(item.head, chosen_evaluation(summary, chosen.step), item.data),
        curve=_curve(item, stored, resampling.seed),
        replicates=task_replicates(item.task, predictions, item.data, resampling),
    )


def _fine_tuned(job: SeedJob, cache_dir: Path, display: Display) -> StoredFineTune:
    from audit.extrinsic.finetune.store import cached_finetune
    from audit.training.status import TrainingStatus

    item = job.item
    settings = item.spec.finetune.for_seed(job.seed)
    which = f" (seed {job.seed})" if job.several else ""
    key = f"extrinsic {item.name} {job.model_id}{which}"
    label = f"fine-tuning {item.name} on {job.model_id}{which}"
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
        job.loaded,
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
    display.info(f"{item.name} on {job.model_id}{which}: fine-tuned model {how}")
    return stored


def _curve(item: PlannedTask, stored: StoredFineTune, seed: int) -> list[CurvePoint]:
    """The task's value and the dev score at every curve step (no interval)."""
    dev_at = {e.step: item.head.dev_value(e) for e in stored.summary.evaluations}
    at_step = Resampling(seed=seed, n_bootstrap=0)
    return [
        CurvePoint(
            step=step,
            value=measured(item, stored.point(step), at_step).value,
            dev=dev_at.get(step),
        )
        for step in stored.steps
    ]
