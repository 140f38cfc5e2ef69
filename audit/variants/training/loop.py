"""The training loop: AdamW with linear warm-up and decay, gradient clipping, seeded
steps, checkpoints and resuming, progress after every step.

Repeatability: step s sets the torch seed from (seed, s) before its forward pass (dropout,
LoRA dropout), draws its masking from a generator seeded from (seed, s), and reads the
examples its seeded per-pass permutation gives (`schedule`). The learning rate is a
function of s. A checkpoint holds the trainable weights, the optimiser state, the
objective's state and the counters, so training from a checkpoint at step k gives the
weights of an uninterrupted training (exactly, on CPU). The global RNG state of the
caller is restored afterwards (`torch.random.fork_rng`).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

import torch

from audit.errors import AuditUserError
from audit.results import TrainingSummary
from audit.variants.training.checkpoint import Checkpoint, load_checkpoint, save_checkpoint
from audit.variants.training.contract import (
    Objective,
    TrainingData,
    TrainingInterrupted,
    TrainingStatus,
)
from audit.variants.training.dropout import dropout_applied
from audit.variants.training.lora import lora_adapters, require_peft
from audit.variants.training.schedule import Stream, derive_seed, lr_factor
from audit.variants.training.task import TrainingTask
from audit.variants.training.tracker import LossTracker

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from audit.variants.settings import TrainingSpec

#: Gradients are clipped to this global norm (as Hugging Face's Trainer and the AT code).
MAX_GRAD_NORM = 1.0
ADAM_EPSILON = 1e-8


def device_label(device: torch.device) -> str:
    if device.type == "cuda":
        return f"{device} ({torch.cuda.get_device_name(device)})"
    return str(device)


def training_identity(
    model: PreTrainedModel,
    model_type: str,
    objective: Objective,
    data: TrainingData,
    settings: TrainingSpec,
) -> str:
    """A hash of what makes two trainings the same (checkpoint_every left out)."""
    digest = hashlib.sha256()
    facts = {
        "model": type(model).__name__,
        "parameters": sum(p.numel() for p in model.parameters()),
        "model_type": model_type,
        "objective": asdict(objective),
        "settings": settings.model_dump(mode="json", exclude={"checkpoint_every"}),
    }
    digest.update(json.dumps(facts, sort_keys=True).encode())
    for name, texts in (
        ("sentences", data.sentences),
        ("targets", data.target_sentences),
        ("attributes", data.attribute_sentences),
        ("target_words", data.target_words),
    ):
        digest.update(f"\n{name}:{len(texts)}\n".encode())
        digest.update("\n".join(texts).encode())
    digest.update(json.dumps({k: list(v) for k, v in data.attribute_words.items()}).encode())
    return digest.hexdigest()


def _check_data(objective: Objective, data: TrainingData) -> None:
    if objective.kind == "lm" and not data.sentences:
        raise AuditUserError("training: the language-model objective got no training sentences")
    if objective.kind == "at" and not (data.target_sentences and data.attribute_sentences):
        raise AuditUserError(
            f"training (at): AT needs target and attribute sentences; got "
            f"{len(data.target_sentences)} target and {len(data.attribute_sentences)} "
            "attribute sentences"
        )


def make_task(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    *,
    model_type: Literal["masked", "causal"],
    objective: Objective,
    data: TrainingData,
    settings: TrainingSpec,
    seed: int,
    device: torch.device,
) -> TrainingTask:
    if objective.kind == "at":
        from audit.variants.training.at import AttributeTargetTask

        return AttributeTargetTask(
            model,
            tokenizer,
            model_type=model_type,
            objective=objective,
            data=data,
            batch_size=settings.batch_size,
            max_length=settings.max_length,
            seed=seed,
            device=device,
        )
    from audit.variants.training.lm import LanguageModelTask

    return LanguageModelTask(
        model,
        tokenizer,
        data.sentences,
        model_type=model_type,
        batch_size=settings.batch_size,
        max_length=settings.max_length,
        seed=seed,
        device=device,
    )


def make_optimizer(
    named: dict[str, torch.nn.Parameter], settings: TrainingSpec
) -> torch.optim.AdamW:
    """AdamW (fused where torch has it); biases and normalisation weights (1-d
    parameters) get no weight decay."""
    decay = [p for p in named.values() if p.ndim >= 2]
    no_decay = [p for p in named.values() if p.ndim < 2]
    groups = [
        {"params": decay, "weight_decay": settings.weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]
    groups = [g for g in groups if g["params"]]
    try:  # the fused kernel: about 3x faster than the per-tensor loop on CPU
        return torch.optim.AdamW(groups, lr=settings.learning_rate, eps=ADAM_EPSILON, fused=True)
    except (RuntimeError, ValueError, TypeError):  # older torch, or a device/dtype without it
        return torch.optim.AdamW(groups, lr=settings.learning_rate, eps=ADAM_EPSILON)


def _autocast(device: torch.device) -> Any:
    """Float32 on every device: exact by default, so a variant trained on a GPU is the
    variant trained on a CPU up to float32 rounding (reduced precision would have to be
    asked for, as the spec's `dtype` asks for it in scoring)."""
    return nullcontext()


def run_training(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    *,
    model_type: Literal["masked", "causal"],
    objective: Objective,
    data: TrainingData,
    settings: TrainingSpec,
    work_dir: Path,
    device: torch.device,
    progress: Callable[[TrainingStatus], None] | None,
    stop_after: int | None,
) -> TrainingSummary:
    """See `audit.variants.training.run.train_model`."""
    if settings.seed is None:
        raise ValueError("settings.seed must be filled in (TrainingSpec.with_seed)")
    _check_data(objective, data)
    if settings.lora is not None:
        require_peft()
    identity = training_identity(model, model_type, objective, data, settings)
    cast(Any, model).to(device)
    cuda: list[int] = []
    if device.type == "cuda":
        cuda = [device.index if device.index is not None else torch.cuda.current_device()]
    with torch.random.fork_rng(devices=cuda):
        task = make_task(
            model,
            tokenizer,
            model_type=model_type,
            objective=objective,
            data=data,
            settings=settings,
            seed=settings.seed,
            device=device,
        )
        try:
            with (
                dropout_applied(
                    model, attention=objective.attention_dropout, hidden=objective.hidden_dropout
                ),
                lora_adapters(model, settings.lora, settings.seed),
            ):
                return _loop(
                    model,
                    task,
                    data=data,
                    settings=settings,
                    seed=settings.seed,
                    identity=identity,
                    work_dir=work_dir,
                    device=device,
                    progress=progress,
                    stop_after=stop_after,
                )
        finally:
            model.zero_grad(set_to_none=True)
            model.eval()
            release = getattr(task, "release", None)
            if release is not None:
                release()


def _loop(
    model: PreTrainedModel,
    task: TrainingTask,
    *,
    data: TrainingData,
    settings: TrainingSpec,
    seed: int,
    identity: str,
    work_dir: Path,
    device: torch.device,
    progress: Callable[[TrainingStatus], None] | None,
    stop_after: int | None,
) -> TrainingSummary:
    total = settings.total_steps(data.n_examples())
    named = {n: p for n, p in model.named_parameters() if p.requires_grad}
    params = list(named.values())
    optimizer = make_optimizer(named, settings)
    term_names = ("debias", "regulariser") if task.name == "at" else ()
    tracker = LossTracker(total, term_names)
    start, resumed = 0, None
    checkpoint = load_checkpoint(work_dir, identity=identity, device=device)
    if checkpoint is not None:
        if set(checkpoint.trainable) != set(named):
            raise AuditUserError(
                f"checkpoint in {work_dir} holds other parameters than this training trains; "
                f"delete {work_dir / 'checkpoint'} to train from the start"
            )
        with torch.no_grad():
            for name, value in checkpoint.trainable.items():
                named[name].copy_(value)
        optimizer.load_state_dict(checkpoint.optimizer)
        tracker.load_state(checkpoint.tracker)
        task.load_state(checkpoint.objective_state)
        start = resumed = checkpoint.step

    def save(done: int) -> None:
        tracker.seconds = seconds_before + (time.perf_counter() - started)
        save_checkpoint(
            work_dir,
            Checkpoint(
                step=done,
                identity=identity,
                trainable={n: p.detach() for n, p in named.items()},
                optimizer=optimizer.state_dict(),
                tracker=tracker.state(),
                objective_state=task.state(),
            ),
        )

    model.train()
    seconds_before = tracker.seconds
    session_tokens = 0
    started = time.perf_counter()
    for step in range(start, total):
        for group in optimizer.param_groups:
            group["lr"] = settings.learning_rate * lr_factor(step, total, settings.warmup)
        torch.manual_seed(derive_seed(seed, Stream.DROPOUT, step))
        with _autocast(device):
            result = task.step_loss(model, step)
        optimizer.zero_grad(set_to_none=True)
        result.loss.backward()
        torch.nn.utils.clip_grad_norm_(params, MAX_GRAD_NORM)
        optimizer.step()
        values = torch.stack(
            [result.loss.detach().float()] + [result.terms[name].float() for name in term_names]
        )
        tracker.add(step, values, result.tokens)
        session_tokens += result.tokens
        done = step + 1
        if progress is not None:
            host = values.tolist()
            elapsed = time.perf_counter() - started
            ran = done - start
            progress(
                TrainingStatus(
                    step=done,
                    total=total,
                    loss=host[0],
                    terms=dict(zip(term_names, host[1:], strict=True)),
                    tokens_per_s=session_tokens / elapsed if elapsed > 0 else 0.0,
                    eta_s=elapsed / ran * (total - done) if ran else None,
                    resumed_from=resumed,
                )
            )
        interrupted = stop_after is not None and done - start >= stop_after and done < total
        if done < total and (done % settings.checkpoint_every == 0 or interrupted):
            save(done)
        if interrupted:
            raise TrainingInterrupted(done)
    tracker.seconds = seconds_before + (time.perf_counter() - started)
    return TrainingSummary(
        objective=task.name,
        steps=total,
        examples=data.n_examples(),
        tokens=tracker.tokens,
        seconds=tracker.seconds,
        device=device_label(device),
        resumed_from_step=resumed,
        first_loss=tracker.first_loss,
        last_loss=tracker.last_loss,
        curve=tracker.curve,
        trainable_parameters=sum(p.numel() for p in params),
    )
