"""The fine-tuning loop shared by the regression and classification heads: AdamW with
linear warm-up and decay, gradient clipping, seeded steps, checkpoints, exact resuming,
and the checkpoint callback every K steps and at the end.

It follows the variant trainer (`audit.variants.training`, docs/training.md) and reuses
its parts as they are: the step schedule (`schedule.batch_indices`, `lr_factor`,
`derive_seed`), the atomic checkpoints (`checkpoint.save_checkpoint` / `load_checkpoint`),
the loss curve (`tracker.LossTracker`), `TrainingStatus` and `TrainingInterrupted`. The
optimiser setup is the trainer's `make_optimizer`, restated here for these settings.

Repeatability: step s sets the torch seed from (seed, s) before its forward pass (the
encoder's and the head's dropout) and reads the examples of its seeded per-pass
permutation; the learning rate is a function of s, so there is no scheduler state to
keep. A checkpoint holds every trainable weight (encoder and head), the AdamW state, the
step and the counters (loss curve, tokens, seconds, dev scores, callback steps), so a
fine-tuning resumed from step k gives the weights of an uninterrupted one (exactly, on
CPU). The caller's global RNG state is restored afterwards.

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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from audit.errors import AuditUserError
from audit.extrinsic.finetune.heads import TaskModel
from audit.extrinsic.finetune.inputs import EncodedInput
from audit.extrinsic.finetune.settings import FineTuneSettings
from audit.results import DevEvaluation, FineTuneSummary
from audit.variants.training.checkpoint import Checkpoint, load_checkpoint, save_checkpoint
from audit.variants.training.contract import TrainingInterrupted, TrainingStatus
from audit.variants.training.loop import ADAM_EPSILON, MAX_GRAD_NORM, device_label
from audit.variants.training.schedule import Stream, batch_indices, derive_seed, lr_factor
from audit.variants.training.tracker import LossTracker

#: Called at the checkpoint steps with the step and the model (eval mode).
OnCheckpoint = Callable[[int, TaskModel], None]
Progress = Callable[[TrainingStatus], None]
#: The loss of a batch: model outputs [B, n] and targets [B] -> a scalar.
LossFn = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


@dataclass(frozen=True)
class EncodedData:
    """A training set ready for the loop: encoded inputs and their targets (float scores
    or long class indices), one per input."""

    inputs: Sequence[EncodedInput]
    targets: torch.Tensor


@dataclass(frozen=True)
class FineTuned:
    """A fine-tuned task model (eval mode, on its device) and what the fine-tuning did."""

    model: TaskModel
    summary: FineTuneSummary


def finetune_identity(facts: dict[str, Any], settings: FineTuneSettings) -> str:
    """A hash of what makes two fine-tunings the same: `facts` (model, task, data hash)
    and the settings without those that change no weight (`checkpoint_every`,
    `dev_at_checkpoints`)."""
    payload = {
        **facts,
        "settings": settings.model_dump(
            mode="json", exclude={"checkpoint_every", "dev_at_checkpoints"}
        ),
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def make_optimizer(
    named: dict[str, torch.nn.Parameter], settings: FineTuneSettings
) -> torch.optim.AdamW:
    """AdamW (fused where torch has it); 1-d parameters (biases, norms) get no decay."""
    decay = [p for p in named.values() if p.ndim >= 2]
    no_decay = [p for p in named.values() if p.ndim < 2]
    groups = [
        {"params": decay, "weight_decay": settings.weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]
    groups = [g for g in groups if g["params"]]
    try:
        return torch.optim.AdamW(groups, lr=settings.learning_rate, eps=ADAM_EPSILON, fused=True)
    except (RuntimeError, ValueError, TypeError):
        return torch.optim.AdamW(groups, lr=settings.learning_rate, eps=ADAM_EPSILON)


class _State:
    """What the summary accumulates besides the loss curve, across sessions."""

    def __init__(self) -> None:
        self.evaluations: list[DevEvaluation] = []
        self.checkpoint_steps: list[int] = []
        self.callback_seconds = 0.0

    def dump(self) -> dict[str, Any]:
        return {
            "evaluations": [e.model_dump(mode="json") for e in self.evaluations],
            "checkpoint_steps": list(self.checkpoint_steps),
            "callback_seconds": self.callback_seconds,
        }

    def load(self, data: dict[str, Any]) -> None:
        self.evaluations = [DevEvaluation.model_validate(e) for e in data["evaluations"]]
        self.checkpoint_steps = [int(s) for s in data["checkpoint_steps"]]
        self.callback_seconds = float(data["callback_seconds"])


def run_finetune(
    model: TaskModel,
    data: EncodedData,
    *,
    loss_fn: LossFn,
    evaluate: Callable[[TaskModel, int], DevEvaluation] | None,
    settings: FineTuneSettings,
    identity: str,
    work_dir: Path,
    device: torch.device,
    on_checkpoint: OnCheckpoint | None,
    progress: Progress | None,
    stop_after: int | None,
) -> FineTuneSummary:
    """Fine-tune `model` (already on `device`) in place; see the module docstring.
    `settings.seed` and `settings.pooling` must be filled in (`FineTuneSettings.resolved`)."""
    if settings.seed is None or settings.pooling is None:
        raise ValueError("settings must be resolved (FineTuneSettings.resolved) before training")
    if not data.inputs:
        raise AuditUserError("fine-tuning: no training example")
    cuda: list[int] = []
    if device.type == "cuda":
        cuda = [device.index if device.index is not None else torch.cuda.current_device()]
    with torch.random.fork_rng(devices=cuda):
        try:
            return _loop(
                model,
                data,
                loss_fn=loss_fn,
                evaluate=evaluate,
                settings=settings,
                seed=settings.seed,
                identity=identity,
                work_dir=work_dir,
                device=device,
                on_checkpoint=on_checkpoint,
                progress=progress,
                stop_after=stop_after,
            )
        finally:
            model.zero_grad(set_to_none=True)
            model.eval()


def _loop(
    model: TaskModel,
    data: EncodedData,
    *,
    loss_fn: LossFn,
    evaluate: Callable[[TaskModel, int], DevEvaluation] | None,
    settings: FineTuneSettings,
    seed: int,
    identity: str,
    work_dir: Path,
    device: torch.device,
    on_checkpoint: OnCheckpoint | None,
    progress: Progress | None,
    stop_after: int | None,
) -> FineTuneSummary:
    n = len(data.inputs)
    total = settings.total_steps(n)
    every = settings.checkpoint_every
    named = {name: p for name, p in model.named_parameters() if p.requires_grad}
    params = list(named.values())
    optimizer = make_optimizer(named, settings)
    tracker = LossTracker(total)
    state = _State()
    start, resumed = 0, None
    checkpoint = load_checkpoint(work_dir, identity=identity, device=device)
    if checkpoint is not None:
        if set(checkpoint.trainable) != set(named):
            raise AuditUserError(
                f"checkpoint in {work_dir} holds other parameters than this fine-tuning "
                f"trains; delete {work_dir / 'checkpoint'} to fine-tune from the start"
            )
        with torch.no_grad():
            for name, value in checkpoint.trainable.items():
                named[name].copy_(value)
        optimizer.load_state_dict(checkpoint.optimizer)
        tracker.load_state(checkpoint.tracker["loss"])
        state.load(checkpoint.tracker["finetune"])
        start = resumed = checkpoint.step

    def save(done: int) -> None:
        tracker.seconds = seconds_before + (time.perf_counter() - started)
        save_checkpoint(
            work_dir,
            Checkpoint(
                step=done,
                identity=identity,
                trainable={name: p.detach() for name, p in named.items()},
                optimizer=optimizer.state_dict(),
                tracker={"loss": tracker.state(), "finetune": state.dump()},
            ),
        )

    def checkpoint_point(done: int) -> None:
        began = time.perf_counter()
        model.eval()
        try:
            if evaluate is not None and (settings.dev_at_checkpoints or done == total):
                state.evaluations.append(evaluate(model, done))
            if on_checkpoint is not None:
                on_checkpoint(done, model)
        finally:
            model.train()
        state.checkpoint_steps.append(done)
        state.callback_seconds += time.perf_counter() - began

    model.train()
    seconds_before = tracker.seconds
    session_tokens = 0
    started = time.perf_counter()
    for step in range(start, total):
        for group in optimizer.param_groups:
            group["lr"] = settings.learning_rate * lr_factor(step, total, settings.warmup)
        torch.manual_seed(derive_seed(seed, Stream.DROPOUT, step))
        rows = batch_indices(n, settings.batch_size, step, seed, Stream.ORDER)
        batch = model.inputs.collate([data.inputs[i] for i in rows]).to(device)
        targets = data.targets[rows].to(device, non_blocking=True)
        loss = loss_fn(model(batch), targets)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, MAX_GRAD_NORM)
        optimizer.step()
        values = loss.detach().float().reshape(1)
        tracker.add(step, values, batch.tokens)
        session_tokens += batch.tokens
        done = step + 1
        if progress is not None:
            elapsed = time.perf_counter() - started
            ran = done - start
            progress(
                TrainingStatus(
                    step=done,
                    total=total,
                    loss=float(values.item()),
                    terms={},
                    tokens_per_s=session_tokens / elapsed if elapsed > 0 else 0.0,
                    eta_s=elapsed / ran * (total - done) if ran else None,
                    resumed_from=resumed,
                )
            )
        if done % every == 0 or done == total:
            checkpoint_point(done)
        interrupted = stop_after is not None and done - start >= stop_after and done < total
        if done < total and (done % every == 0 or interrupted):
            save(done)
        if interrupted:
            raise TrainingInterrupted(done)
    tracker.seconds = seconds_before + (time.perf_counter() - started)
    return FineTuneSummary(
        kind=model.kind,
        model_type=model.model_type,
        pooling=model.pooling,
        labels=list(model.labels),
        steps=total,
        examples=n,
        tokens=tracker.tokens,
        seconds=tracker.seconds,
        callback_seconds=state.callback_seconds,
        device=device_label(device),
        resumed_from_step=resumed,
        first_loss=tracker.first_loss,
        last_loss=tracker.last_loss,
        curve=tracker.curve,
        checkpoint_steps=state.checkpoint_steps,
        evaluations=state.evaluations,
        trainable_parameters=sum(p.numel() for p in params),
        settings=settings.model_dump(mode="json"),
    )
