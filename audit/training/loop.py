"""The one training loop: AdamW with linear warm-up and decay, gradient clipping, seeded
steps, checkpoints and resuming, progress after every step. Variants, bias-controlled
models and extrinsic fine-tunes all train here; what they differ in is the objective
(`objective.TrainingObjective`: masked LM, causal LM, AT, a task head) and an optional
`StepHook` run after a step (the fine-tunes' dev scores and curve points).

Repeatability: step s sets the torch seed from (seed, s) before its forward pass (dropout,
LoRA dropout); the objective draws step s's examples (and masking) from seeds of
(seed, s) (`schedule`). The learning rate is a function of s. A checkpoint holds the
trainable weights, the optimiser state, the objective's state, the hook's state and the
counters, so training from a checkpoint at step k gives the weights of an uninterrupted
training (exactly, on CPU). The caller forks the global RNG (`device.isolated_rng`).

At step s (1-based count `done`): progress, then the hook, then a checkpoint when `done`
is a multiple of `checkpoint_every` (or the test hook `stop_after` stops here), never at
the last step. A hook therefore runs *before* the checkpoint of its step: a training
killed in between does the step again and runs the hook again.

Ctrl-C and SIGTERM (`audit.interrupts`): the forward and backward pass may be cut short;
the update, the progress, the hook and the periodic checkpoint of a step are held back
from an interrupt until they are whole. On an interrupt the loop writes a checkpoint at
the last finished step (unless that is the last step or already on disk) and re-raises,
so the rerun loses at most the step in progress. Each checkpoint written or resumed from
is noted for the interrupt's message (`audit.run_progress`); the fault point
`train-step` follows every step.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

import torch

from audit.errors import AuditUserError
from audit.faults import fault_point
from audit.interrupts import Interrupted, deferred
from audit.run_progress import note_checkpoint
from audit.training.checkpoint import Checkpoint, load_checkpoint, save_checkpoint
from audit.training.objective import TrainingObjective
from audit.training.optimizer import MAX_GRAD_NORM, make_optimizer
from audit.training.schedule import Stream, derive_seed, lr_factor
from audit.training.status import TrainingInterrupted, TrainingStatus
from audit.training.tracker import CurvePoint, LossTracker

Progress = Callable[[TrainingStatus], None]
#: How error messages name a training, and the verb for "start again".
_VERB = {"training": "train", "fine-tuning": "fine-tune"}


class LoopSettings(Protocol):
    """What the loop reads of a training's settings (`TrainingSpec`, `FineTuneSettings`)."""

    @property
    def learning_rate(self) -> float: ...

    @property
    def warmup(self) -> float: ...

    @property
    def weight_decay(self) -> float: ...

    @property
    def checkpoint_every(self) -> int: ...


class StepHook(Protocol):
    """Run after a step, with the step count and the total; its state goes into the
    checkpoint under `name`, beside the loss tracker's."""

    name: str

    def after_step(self, done: int, total: int) -> None: ...

    def state(self) -> dict[str, Any]: ...

    def load_state(self, state: dict[str, Any]) -> None: ...


@dataclass(frozen=True)
class LoopResult:
    """What a finished training did, for its summary."""

    steps: int
    tokens: int
    seconds: float
    resumed_from_step: int | None
    first_loss: float | None
    last_loss: float | None
    curve: list[CurvePoint]
    trainable_parameters: int

    def summary_fields(self) -> dict[str, Any]:
        """The fields every training summary shares (`TrainingSummary`,
        `FineTuneSummary`), the curve as plain dicts."""
        return {
            "steps": self.steps,
            "tokens": self.tokens,
            "seconds": self.seconds,
            "resumed_from_step": self.resumed_from_step,
            "first_loss": self.first_loss,
            "last_loss": self.last_loss,
            "curve": [p.as_dict() for p in self.curve],
            "trainable_parameters": self.trainable_parameters,
        }


def run_loop(
    model: torch.nn.Module,
    objective: TrainingObjective,
    *,
    total: int,
    settings: LoopSettings,
    seed: int,
    identity: str,
    work_dir: Path,
    what: Literal["training", "fine-tuning"] = "training",
    hook: StepHook | None = None,
    progress: Progress | None = None,
    stop_after: int | None = None,
) -> LoopResult:
    """Train the trainable parameters of `model` (already on its device) for `total` steps
    on `objective`, resuming from a checkpoint of the same `identity` in `work_dir`.
    `what` names the training in error messages ("training", "fine-tuning")."""
    device = next(model.parameters()).device
    named = {n: p for n, p in model.named_parameters() if p.requires_grad}
    params = list(named.values())
    optimizer = make_optimizer(
        named, learning_rate=settings.learning_rate, weight_decay=settings.weight_decay
    )
    term_names = objective.term_names
    tracker = LossTracker(total, term_names)
    start, resumed = 0, None
    checkpoint = load_checkpoint(work_dir, identity=identity, device=device)
    if checkpoint is not None:
        if set(checkpoint.trainable) != set(named):
            raise AuditUserError(
                f"checkpoint in {work_dir} holds other parameters than this {what} trains; "
                f"delete {work_dir / 'checkpoint'} to {_VERB[what]} from the start"
            )
        with torch.no_grad():
            for name, value in checkpoint.trainable.items():
                named[name].copy_(value)
        optimizer.load_state_dict(checkpoint.optimizer)
        if hook is None:
            tracker.load_state(checkpoint.tracker)
        else:
            tracker.load_state(checkpoint.tracker["loss"])
            hook.load_state(checkpoint.tracker[hook.name])
        objective.load_state(checkpoint.objective_state)
        start = resumed = checkpoint.step

    def save(done: int) -> None:
        tracker.seconds = seconds_before + (time.perf_counter() - started)
        counters = tracker.state()
        if hook is not None:
            counters = {"loss": counters, hook.name: hook.state()}
        save_checkpoint(
            work_dir,
            Checkpoint(
                step=done,
                identity=identity,
                trainable={n: p.detach() for n, p in named.items()},
                optimizer=optimizer.state_dict(),
                tracker=counters,
                objective_state=objective.state(),
            ),
        )
        note_checkpoint(done)

    model.train()
    seconds_before = tracker.seconds
    session_tokens = 0
    started = time.perf_counter()
    # The last step whose update, bookkeeping and hook are whole (None in the middle of
    # one), and the step of the checkpoint on disk: an interrupt saves the former.
    finished: int | None = start
    saved = start
    if resumed is not None:
        note_checkpoint(resumed)
    try:
        for step in range(start, total):
            for group in optimizer.param_groups:
                group["lr"] = settings.learning_rate * lr_factor(step, total, settings.warmup)
            torch.manual_seed(derive_seed(seed, Stream.DROPOUT, step))
            result = objective.step_loss(model, step)
            optimizer.zero_grad(set_to_none=True)
            result.loss.backward()
            with deferred():  # the update and its bookkeeping end whole, or not at all
                finished = None
                torch.nn.utils.clip_grad_norm_(params, MAX_GRAD_NORM)
                optimizer.step()
                values = torch.stack(
                    [result.loss.detach().float()]
                    + [result.terms[name].float() for name in term_names]
                )
                tracker.add(step, values, result.tokens)
                session_tokens += result.tokens
                done = step + 1
                if progress is not None:
                    elapsed = time.perf_counter() - started
                    progress(
                        _status(
                            values,
                            term_names,
                            done,
                            total,
                            elapsed,
                            resumed,
                            ran=done - start,
                            tokens=session_tokens,
                        )
                    )
                if hook is not None:
                    hook.after_step(done, total)
                interrupted = stop_after is not None and done - start >= stop_after
                interrupted = interrupted and done < total
                if done < total and (done % settings.checkpoint_every == 0 or interrupted):
                    save(done)
                    saved = done
                finished = done
            fault_point(f"{what}-step")
            if interrupted:
                raise TrainingInterrupted(done)
    except (KeyboardInterrupt, Interrupted):
        # Ctrl-C or SIGTERM: keep every finished step (not the last: it is no checkpoint).
        if finished is not None and saved < finished < total:
            with deferred():
                save(finished)
        raise
    tracker.seconds = seconds_before + (time.perf_counter() - started)
    return LoopResult(
        steps=total,
        tokens=tracker.tokens,
        seconds=tracker.seconds,
        resumed_from_step=resumed,
        first_loss=tracker.first_loss,
        last_loss=tracker.last_loss,
        curve=tracker.curve,
        trainable_parameters=sum(p.numel() for p in params),
    )


def _status(
    values: torch.Tensor,
    term_names: tuple[str, ...],
    done: int,
    total: int,
    elapsed: float,
    resumed: int | None,
    *,
    ran: int,
    tokens: int,
) -> TrainingStatus:
    """The progress report after step `done`: its loss and the terms it computed; the
    speed and ETA of the `ran` steps and `tokens` of this session, in `elapsed` seconds."""
    host = values.tolist()
    return TrainingStatus(
        step=done,
        total=total,
        loss=host[0],
        terms={n: v for n, v in zip(term_names, host[1:], strict=True) if not math.isnan(v)},
        tokens_per_s=tokens / elapsed if elapsed > 0 else 0.0,
        eta_s=elapsed / ran * (total - done) if ran else None,
        resumed_from=resumed,
    )
