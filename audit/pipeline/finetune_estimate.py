"""How long the planned extrinsic fine-tunings will take (`finetune_estimates`).

A fine-tuning's time is its set-up and first step, then its other steps times a step of
the run's own fine-tuning (`audit.extrinsic.finetune.tune.finetune`: the task head's
loss, AdamW, clipping), plus its checkpoint work: at each of its checkpoints (every
`checkpoint_every` steps and at the last) the task's predictions on its evaluation
inputs, and the dev set's score at each checkpoint (`dev_at_checkpoints`) or at the last
only. Both are timed in one short fine-tuning on the model (`time_finetune`: its set-up
and first step, then `TIMED_FINETUNE_STEPS` steps, then one checkpoint's predictions and
dev score), once per model shape, task data and settings (the seed changes no time, so
the seeds of a task share one measurement). Not counted: loading the model and writing
the intermediate checkpoints.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit.pipeline.calibrator import (
    Calibrator,
    StageEstimate,
    TimedSteps,
    estimate_of,
    timed_as,
)

if TYPE_CHECKING:
    from audit.calibration import Throughput
    from audit.extrinsic.finetune.settings import FineTuneSettings
    from audit.extrinsic.planned import PlannedTask
    from audit.models.loaded import LoadedModel
    from audit.pipeline.audit_plan import AuditPlan

__all__ = ["FineTuneTiming", "checkpoints_of", "finetune_estimates", "time_finetune"]

#: Steps of a fine-tuning timed for the plan (after its set-up and first step).
TIMED_FINETUNE_STEPS = 3


@dataclass(frozen=True)
class FineTuneTiming:
    """What a fine-tuning's time is made of, in seconds: its steps (the set-up and first
    step, the median of the others), the task's predictions at one checkpoint, the dev
    set's score once (0 without a dev set)."""

    steps: TimedSteps
    predictions: float
    dev: float

    def whole(self, settings: FineTuneSettings, steps: int, has_dev: bool) -> float:
        """Seconds of a fine-tuning of `steps` steps with `settings`' checkpoints."""
        checkpoints = checkpoints_of(steps, settings.checkpoint_every)
        devs = (checkpoints if settings.dev_at_checkpoints else 1) if has_dev else 0
        return self.steps.whole(steps) + checkpoints * self.predictions + devs * self.dev


def checkpoints_of(steps: int, every: int) -> int:
    """The checkpoints of a fine-tuning of `steps` steps: every `every`-th and the last."""
    return steps // every + (1 if steps % every else 0)


def time_finetune(task: PlannedTask, loaded: LoadedModel, seed: int, timed: int) -> FineTuneTiming:
    """A fine-tuning of `task`'s head on `loaded` by the run's own code, `timed` + 1 steps
    (its set-up and first step timed apart), ending with one checkpoint's predictions and
    dev score, each timed; no checkpoint is kept and `loaded` is not changed."""
    from audit.calibration import clock
    from audit.extrinsic.finetune.settings import PREDICT_BATCH
    from audit.extrinsic.finetune.tune import finetune

    steps = timed + 1
    settings = task.spec.finetune.for_seed(seed).model_copy(
        update={"steps": steps, "epochs": None, "checkpoint_every": steps}
    )
    head = task.task_head.for_rows(task.data.train)
    stamps: list[float] = []
    spent: dict[str, float] = {}

    def on_checkpoint(step: int, model: Any) -> None:
        began = clock()
        task.task.predict(model, task.data)
        spent["predictions"] = clock() - began
        if task.data.dev:
            began = clock()
            head.metric(model, task.data.dev, PREDICT_BATCH)
            spent["dev"] = clock() - began

    with tempfile.TemporaryDirectory(prefix="audit-plan-finetune-") as work:
        began = clock()
        finetune(
            loaded,
            head,
            task.data.train,
            [],  # the dev score is timed in on_checkpoint, as the run scores it there
            settings=settings,
            work_dir=Path(work),
            on_checkpoint=on_checkpoint,
            progress=lambda _status: stamps.append(clock()),
        )
    return FineTuneTiming(
        steps=TimedSteps.of(began, stamps),
        predictions=spent["predictions"],
        dev=spent.get("dev", 0.0),
    )


def finetune_estimates(plan: AuditPlan, calibrator: Calibrator) -> list[StageEstimate]:
    """Each extrinsic fine-tuning not in the cache (each seed of a task with several):
    its steps and checkpoints, timed (`time_finetune`)."""
    from audit.extrinsic.finetune.store import FineTuneStore

    estimates: list[StageEstimate] = []
    spec_seed = plan.loaded.spec.seed
    for task in plan.extrinsic:
        steps = task.total_steps()
        seeds = task.seeds(spec_seed)
        for model_id in task.models:
            model = plan.models.get(model_id)
            for seed in seeds:
                if model is not None:
                    key = task.cache_key(model.fingerprint, model.model_type, seed)
                    if FineTuneStore.of(plan.settings.cache_dir, key).is_done():
                        continue
                which = f" (seed {seed})" if len(seeds) > 1 else ""
                what = f"{task.name} on {model_id}{which}: {steps:,} steps"
                timed_on = timed_as(plan, model_id)
                if timed_on != model_id:
                    what += f" (timed as its base {timed_on})"
                throughput = _finetune_throughput(plan, calibrator, task, timed_on, seeds[0])
                estimates.append(estimate_of("fine-tuning", what, throughput, steps, "step"))
    return estimates


def _finetune_throughput(
    plan: AuditPlan, calibrator: Calibrator, task: PlannedTask, model_id: str, seed: int
) -> Throughput | None:
    """Seconds a step of the task's fine-tuning on `model_id`, its checkpoints' share
    counted in (a whole fine-tuning divided by its steps)."""
    model = plan.models[model_id]
    settings = task.spec.finetune
    steps = task.total_steps()
    shape = {
        "settings": settings.training_dump() | {"seed": None},
        "task": task.task_options(),
        "rows": [len(task.data.train), len(task.data.dev)],
    }
    digest = hashlib.sha256(json.dumps(shape, sort_keys=True, default=str).encode())
    key = calibrator.key("finetune", model, task.name, digest.hexdigest()[:16])
    checkpoints = checkpoints_of(steps, settings.checkpoint_every)
    dev = (
        f", the dev set's {len(task.data.dev):,} rows scored "
        + ("at each" if settings.dev_at_checkpoints else "at the last")
        if task.data.dev
        else ""
    )
    basis = (
        f"{TIMED_FINETUNE_STEPS} timed steps of the fine-tuning itself ({settings.batch_size} "
        f"x up to {settings.max_length} tokens, AdamW, clipping; the median counted, its "
        f"set-up and first step once) and one checkpoint's predictions and dev score, on "
        f"{model_id} on {model.device}: "
        f"{checkpoints} checkpoint{'s' if checkpoints != 1 else ''} with the task's "
        f"predictions{dev}, in the step's time"
    )
    return calibrator.throughput(
        key,
        model_id,
        float32=True,
        timing=_whole_finetune(task, seed, steps),
        basis=basis,
    )


def _whole_finetune(
    task: PlannedTask, seed: int, steps: int
) -> Callable[[LoadedModel], tuple[float, int]]:
    def timing(loaded: LoadedModel) -> tuple[float, int]:
        timed = time_finetune(task, loaded, seed, TIMED_FINETUNE_STEPS)
        return timed.whole(task.spec.finetune, steps, bool(task.data.dev)), steps

    return timing
