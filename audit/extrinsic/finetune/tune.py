"""Fine-tuning a task head (`task_head.TaskHead`, of any registered kind) and a
copy of an audited model's encoder, in the one training loop (`audit.training.loop`):
the head's loss is the loop's objective (`HeadObjective`), and the dev scores and the
caller's curve callback every K steps are the loop's step hook (`CurveHook`).

Repeatability: as every training (docs/training.md): step s reads the examples of its
seeded per-pass permutation, seeds dropout from (seed, s), and a fine-tuning resumed from
step k gives the weights of an uninterrupted one (exactly, on CPU).

At every K-th step and at the last, the dev set is scored (at the last only, with
`dev_at_checkpoints: false`) and `on_checkpoint(step, model)` is called (model in eval
mode), *before* that step's checkpoint is written: a fine-tuning killed in between does
the step again and calls back again, so no curve point is lost.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

from audit.errors import AuditUserError
from audit.extrinsic.finetune.examples import TextInput
from audit.extrinsic.finetune.heads import TaskModel, build_task_model
from audit.extrinsic.finetune.inputs import EncodedInput
from audit.extrinsic.finetune.settings import PREDICT_BATCH, FineTuneSettings
from audit.extrinsic.finetune.task_head import TaskHead
from audit.results import DevEvaluation, FineTuneSummary
from audit.training.device import device_label, isolated_rng, left_for_inference
from audit.training.loop import Progress, run_loop
from audit.training.objective import StatelessObjective, StepLoss
from audit.training.schedule import Stream, batch_indices

if TYPE_CHECKING:
    from audit.models.loaded import LoadedModel

#: Called at the checkpoint steps with the step and the model (eval mode).
OnCheckpoint = Callable[[int, TaskModel], None]


@dataclass(frozen=True)
class FineTuned:
    """A fine-tuned task model (eval mode, on its device) and what the fine-tuning did."""

    model: TaskModel
    summary: FineTuneSummary


def finetune_identity(facts: dict[str, Any], settings: FineTuneSettings) -> str:
    """A hash of what makes two fine-tunings the same: `facts` (model, task, data hash)
    and the settings without those that change no weight (`checkpoint_every`,
    `dev_at_checkpoints`, `checkpoint`)."""
    settings_json = settings.training_dump()
    for name in ("checkpoint_every", "dev_at_checkpoints"):
        settings_json.pop(name, None)
    payload = {**facts, "settings": settings_json}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


@dataclass(eq=False)
class HeadObjective(StatelessObjective):
    """The head's loss on the training set: step s reads the examples
    `schedule.batch_indices` gives and compares the model's outputs with their targets."""

    head: TaskHead
    inputs: Sequence[EncodedInput]
    targets: torch.Tensor
    _: KW_ONLY
    batch_size: int
    seed: int
    device: torch.device
    name: str = field(default="task_head", init=False)
    term_names: tuple[str, ...] = field(default=(), init=False)

    def step_loss(self, model: TaskModel, step: int) -> StepLoss:
        rows = batch_indices(len(self.inputs), self.batch_size, step, self.seed, Stream.ORDER)
        batch = model.inputs.collate([self.inputs[i] for i in rows]).to(self.device)
        targets = self.targets[rows].to(self.device, non_blocking=True)
        return StepLoss(self.head.loss(model(batch), targets), {}, batch.tokens)


@dataclass(eq=False)
class CurveHook:
    """Every `every` steps and at the last: the dev scores and the caller's callback, with
    the model in eval mode; what they did is kept across checkpoints."""

    model: TaskModel
    _: KW_ONLY
    every: int
    dev_at_checkpoints: bool
    evaluate: Callable[[TaskModel, int], DevEvaluation] | None
    on_checkpoint: OnCheckpoint | None
    evaluations: list[DevEvaluation] = field(default_factory=list, init=False)
    checkpoint_steps: list[int] = field(default_factory=list, init=False)
    callback_seconds: float = field(default=0.0, init=False)
    name: str = field(default="finetune", init=False)

    def after_step(self, done: int, total: int) -> None:
        if done % self.every != 0 and done != total:
            return
        began = time.perf_counter()
        self.model.eval()
        try:
            if self.evaluate is not None and (self.dev_at_checkpoints or done == total):
                self.evaluations.append(self.evaluate(self.model, done))
            if self.on_checkpoint is not None:
                self.on_checkpoint(done, self.model)
        finally:
            self.model.train()
        self.checkpoint_steps.append(done)
        self.callback_seconds += time.perf_counter() - began

    def state(self) -> dict[str, Any]:
        return {
            "evaluations": [e.model_dump(mode="json") for e in self.evaluations],
            "checkpoint_steps": list(self.checkpoint_steps),
            "callback_seconds": self.callback_seconds,
        }

    def load_state(self, state: dict[str, Any]) -> None:
        self.evaluations = [DevEvaluation.model_validate(e) for e in state["evaluations"]]
        self.checkpoint_steps = [int(s) for s in state["checkpoint_steps"]]
        self.callback_seconds = float(state["callback_seconds"])


def finetune(
    loaded: LoadedModel,
    head: TaskHead,
    train_rows: Sequence[Any],
    dev_rows: Sequence[Any],
    *,
    settings: FineTuneSettings,
    work_dir: Path,
    device: torch.device | None = None,
    on_checkpoint: OnCheckpoint | None = None,
    progress: Progress | None = None,
    stop_after: int | None = None,
    predict_batch: int = PREDICT_BATCH,
) -> FineTuned:
    """Fine-tune `head` and a copy of `loaded`'s encoder on `train_rows` (the head's loss
    on its targets); `loaded` is not changed. A classifier's classes are the head's
    labels, else the training labels sorted; a label outside them is a user error.

    `settings.seed` must be filled in (`FineTuneSettings.with_seed`); pooling defaults by
    model type. `work_dir` holds the checkpoints: one there is resumed from, and left
    there. At every `settings.checkpoint_every` steps and at the end the dev set is
    scored (the head's metric, in the summary's `evaluations`) and `on_checkpoint(step,
    model)` is called. `stop_after` (a test hook) raises `TrainingInterrupted` after that
    many steps of this call, once their checkpoint is written.
    """
    if settings.seed is None:
        raise ValueError("settings.seed must be filled in (FineTuneSettings.with_seed)")
    if not train_rows:
        raise AuditUserError(f"fine-tuning ({head.kind}): no training {head.example}")
    head = head.for_rows(train_rows)
    targets = head.targets(head, "training", train_rows)
    head.targets(head, "dev", dev_rows)
    device = device if device is not None else loaded.device
    resolved = settings.resolved(loaded.model_type, settings.seed)
    assert resolved.pooling is not None and resolved.seed is not None
    model = build_task_model(
        loaded,
        task_head=head,
        pooling=resolved.pooling,
        max_length=resolved.max_length,
        head_dropout=resolved.head_dropout,
        seed=resolved.seed,
        device=device,
    )
    inputs: list[TextInput] = [head.inputs(r) for r in train_rows]
    objective = HeadObjective(
        head,
        model.inputs.encode(inputs),
        targets,
        batch_size=resolved.batch_size,
        seed=resolved.seed,
        device=device,
    )
    identity = finetune_identity(
        {
            "kind": head.kind,
            "model": type(loaded.model).__name__,
            "fingerprint": loaded.fingerprint,
            "parameters": sum(p.numel() for p in model.parameters()),
            "data": head.data_sha256(head, train_rows, dev_rows),
        },
        resolved,
    )

    def evaluate(m: TaskModel, step: int) -> DevEvaluation:
        return DevEvaluation(step=step, n=len(dev_rows), **head.metric(m, dev_rows, predict_batch))

    hook = CurveHook(
        model,
        every=resolved.checkpoint_every,
        dev_at_checkpoints=resolved.dev_at_checkpoints,
        evaluate=evaluate if dev_rows else None,
        on_checkpoint=on_checkpoint,
    )
    n = len(train_rows)
    with isolated_rng(device), left_for_inference(model):
        result = run_loop(
            model,
            objective,
            total=resolved.total_steps(n),
            settings=resolved,
            seed=resolved.seed,
            identity=identity,
            work_dir=work_dir,
            what="fine-tuning",
            hook=hook,
            progress=progress,
            stop_after=stop_after,
        )
    summary = FineTuneSummary.model_validate(
        {
            "kind": head.kind,
            "model_type": model.model_type,
            "pooling": model.pooling,
            "labels": list(model.labels),
            "examples": n,
            "callback_seconds": hook.callback_seconds,
            "device": device_label(device),
            "checkpoint_steps": hook.checkpoint_steps,
            "evaluations": hook.evaluations,
            "settings": resolved.training_dump(),
            **result.summary_fields(),
        }
    )
    return FineTuned(model=model, summary=summary)
