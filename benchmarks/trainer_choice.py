"""Should the tool's training loop be transformers' `Trainer` or an `accelerate` loop?
The same masked-LM training of minilm-mlm (or, without it, a tiny BERT) for `--steps`
steps three ways, from the same weights, with the same seed, batches, masking, dropout
seeds, AdamW, warm-up/decay schedule and clipping:

- `ours`: `audit.variants.trainer.train_model` (the one loop, `audit.training.loop`);
- `hf_trainer`: `transformers.Trainer` with our objective as `compute_loss`, our
  optimizer and the schedule as a `LambdaLR` (`optimizers=`), `max_grad_norm` 1.0;
- `accelerate`: a loop on `accelerate.Accelerator` (`prepare`, `backward`,
  `clip_grad_norm_`) with the same objective, optimizer and schedule.

The three run in turn, `--rounds` times (other jobs share the machine: alternating
spreads their load over all three). Each records seconds per step (the median over its
rounds of the steps after each round's first, a warm-up), steps/s, its speed relative to
`ours`, and the largest absolute difference of its per-step losses and of its final
weights from `ours` (first round). Writes benchmarks/results/trainer_choice_<device>.json.

    .venv/bin/python benchmarks/trainer_choice.py [--steps 10] [--rounds 2]
        [--model auto|minilm|tiny]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import torch
from common import add_device_arguments, choose_device, results_path

from audit.training.objectives.lm import LanguageModelTask
from audit.training.optimizer import MAX_GRAD_NORM, make_optimizer
from audit.training.schedule import Stream, derive_seed, lr_factor
from audit.variants.settings import TrainingSpec
from audit.variants.trainer import Objective, TrainingData, TrainingStatus, train_model

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("AUDIT_SHARED_DIR", REPO.parent / "shared")).resolve()
MINILM_DIRS = (
    Path.home() / ".cache" / "bias-fixtures" / "minilm-mlm",
    Path.home() / ".cache" / "bias-audit-tests" / "minilm-mlm",
)
BATCH, MAX_LENGTH, SEED, LEARNING_RATE = 8, 64, 13, 5e-5

Loaded = tuple[Any, Any]  # (model, tokenizer)


def sentences() -> list[str]:
    path = SHARED / "data" / "sts_b" / "sts-train.tsv"
    if not path.is_file():
        from tests.models.tiny import TINY_CORPUS

        return list(TINY_CORPUS)
    out: dict[str, None] = {}
    for line in path.read_text(encoding="utf-8").splitlines()[:400]:
        cells = line.split("\t")
        for text in cells[5:7] if len(cells) >= 7 else ():
            out[text.strip()] = None
    return [s for s in out if s]


def model_loader(choice: str) -> tuple[str, Callable[[], Loaded]]:
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    found = next((d for d in MINILM_DIRS if (d / "config.json").is_file()), None)
    if choice == "minilm" or (choice == "auto" and found is not None):
        if found is None:
            raise SystemExit("minilm-mlm is not built; see ../shared/models/README.md")
        folder = found
        name = "minilm-mlm"
    else:
        from tests.models.tiny import save_tiny_bert

        folder = save_tiny_bert(Path(tempfile.mkdtemp()) / "bert")
        name = "tiny-bert"

    def load() -> Loaded:
        model = AutoModelForMaskedLM.from_pretrained(folder).float()
        return model, AutoTokenizer.from_pretrained(folder)

    return name, load


def objective_of(model: Any, tokenizer: Any, data: list[str], device: torch.device) -> Any:
    return LanguageModelTask(
        model,
        tokenizer,
        data,
        model_type="masked",
        batch_size=BATCH,
        max_length=MAX_LENGTH,
        seed=SEED,
        device=device,
    )


def optimizer_and_schedule(model: Any, steps: int, warmup: float) -> tuple[Any, Any]:
    named = {n: p for n, p in model.named_parameters() if p.requires_grad}
    optimizer = make_optimizer(named, learning_rate=LEARNING_RATE, weight_decay=0.01)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: lr_factor(step, steps, warmup)
    )
    return optimizer, schedule


def run_ours(load: Callable[[], Loaded], data: list[str], steps: int, device: torch.device) -> Any:
    model, tokenizer = load()
    spec = TrainingSpec.model_validate(
        {
            "steps": steps,
            "learning_rate": LEARNING_RATE,
            "batch_size": BATCH,
            "max_length": MAX_LENGTH,
            "weight_decay": 0.01,
            "seed": SEED,
            "checkpoint_every": 10**9,
        }
    )
    losses: list[float] = []
    stamps: list[float] = [time.perf_counter()]

    def progress(status: TrainingStatus) -> None:
        losses.append(status.loss)
        stamps.append(time.perf_counter())

    train_model(
        model,
        tokenizer,
        model_type="masked",
        objective=Objective(kind="lm"),
        data=TrainingData(sentences=tuple(data)),
        settings=spec,
        work_dir=Path(tempfile.mkdtemp()),
        device=device,
        progress=progress,
    )
    return model, losses, stamps, spec.warmup


def run_hf_trainer(
    load: Callable[[], Loaded], data: list[str], steps: int, warmup: float, device: torch.device
) -> Any:
    from transformers import Trainer, TrainingArguments

    model, tokenizer = load()
    model.to(device)
    objective = objective_of(model, tokenizer, data, device)
    optimizer, schedule = optimizer_and_schedule(model, steps, warmup)
    losses: list[float] = []
    stamps: list[float] = []

    class ObjectiveTrainer(Trainer):
        def compute_loss(self, model: Any, inputs: Any, *args: Any, **kwargs: Any) -> Any:
            step = self.state.global_step
            if not stamps:
                stamps.append(time.perf_counter())
            torch.manual_seed(derive_seed(SEED, Stream.DROPOUT, step))
            return objective.step_loss(model, step).loss

    args = TrainingArguments(
        output_dir=tempfile.mkdtemp(),
        max_steps=steps,
        per_device_train_batch_size=1,
        max_grad_norm=MAX_GRAD_NORM,
        logging_strategy="no",
        save_strategy="no",
        report_to=[],
        disable_tqdm=True,
        remove_unused_columns=False,
        use_cpu=device.type == "cpu",
        dataloader_num_workers=0,
        seed=SEED,
    )
    dataset = [{"step": torch.tensor(i)} for i in range(steps)]

    from transformers import TrainerCallback

    class Record(TrainerCallback):  # the time at the end of each optimizer step
        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            stamps.append(time.perf_counter())

    trainer = ObjectiveTrainer(
        model=model,
        args=args,
        train_dataset=dataset,
        data_collator=lambda rows: {"step": torch.stack([r["step"] for r in rows])},
        optimizers=(optimizer, schedule),
        callbacks=[Record()],
    )
    original = objective.step_loss

    def recording(m: Any, step: int) -> Any:
        result = original(m, step)
        losses.append(float(result.loss.detach().float()))
        return result

    objective.step_loss = recording
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trainer.train()
    return model.eval(), losses, stamps


def run_accelerate(
    load: Callable[[], Loaded], data: list[str], steps: int, warmup: float, device: torch.device
) -> Any:
    from accelerate import Accelerator

    model, tokenizer = load()
    accelerator = Accelerator(cpu=device.type == "cpu")
    model.to(accelerator.device)
    objective = objective_of(model, tokenizer, data, accelerator.device)
    optimizer, schedule = optimizer_and_schedule(model, steps, warmup)
    model, optimizer = accelerator.prepare(model, optimizer)
    params = [p for p in model.parameters() if p.requires_grad]
    losses: list[float] = []
    stamps = [time.perf_counter()]
    model.train()
    for step in range(steps):
        torch.manual_seed(derive_seed(SEED, Stream.DROPOUT, step))
        loss = objective.step_loss(model, step).loss
        optimizer.zero_grad(set_to_none=True)
        accelerator.backward(loss)
        accelerator.clip_grad_norm_(params, MAX_GRAD_NORM)
        optimizer.step()
        schedule.step()
        losses.append(float(loss.detach().float()))
        stamps.append(time.perf_counter())
    return accelerator.unwrap_model(model).eval(), losses, stamps


def step_durations(stamps: list[float]) -> list[float]:
    """The durations of the steps after the first (a warm-up)."""
    return [b - a for a, b in itertools.pairwise(stamps)][1:]


def timing(durations: list[float]) -> dict[str, float]:
    median = statistics.median(durations)
    return {
        "seconds_per_step": median,
        "steps_per_s": 1.0 / median,
        "timed_steps": len(durations),
    }


def max_weight_difference(a: Any, b: Any) -> float:
    sa, sb = a.state_dict(), b.state_dict()
    return max(float((sa[k].float() - sb[k].float()).abs().max()) for k in sa)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--model", choices=("auto", "minilm", "tiny"), default="auto")
    add_device_arguments(parser, dtype=False)
    args = parser.parse_args()
    if args.steps < 3:
        parser.error("at least 3 steps: the first one is not timed")
    device = choose_device(args.device)
    name, load = model_loader(args.model)
    data = sentences()
    others = {"hf_trainer": run_hf_trainer, "accelerate": run_accelerate}
    durations: dict[str, list[float]] = {"ours": [], **{label: [] for label in others}}
    runs: dict[str, Any] = {}
    for round_ in range(args.rounds):
        ours_model, ours_losses, ours_stamps, warmup = run_ours(load, data, args.steps, device)
        durations["ours"] += step_durations(ours_stamps)
        print(f"round {round_ + 1} ours: {timing(durations['ours'])}", flush=True)
        if round_ == 0:
            runs["ours"] = {"losses": ours_losses}
        for label, run in others.items():
            model, losses, stamps = run(load, data, args.steps, warmup, device)
            durations[label] += step_durations(stamps)
            print(f"round {round_ + 1} {label}: {timing(durations[label])}", flush=True)
            if round_ == 0:
                runs[label] = {
                    "losses": losses,
                    "max_abs_loss_difference": max(
                        abs(a - b) for a, b in zip(losses, ours_losses, strict=True)
                    ),
                    "max_abs_weight_difference": max_weight_difference(model, ours_model),
                }
    for label, spent in durations.items():
        runs[label].update(timing(spent))
    for label in others:
        runs[label]["relative_speed"] = (
            runs["ours"]["seconds_per_step"] / runs[label]["seconds_per_step"]
        )
        print(
            f"{label}: {runs[label]['steps_per_s']:.3f} steps/s (ours "
            f"{runs['ours']['steps_per_s']:.3f}), max |loss diff| "
            f"{runs[label]['max_abs_loss_difference']:.3g}, max |weight diff| "
            f"{runs[label]['max_abs_weight_difference']:.3g}",
            flush=True,
        )
    import accelerate
    import transformers

    record = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "cpu": platform.machine(),
            "threads": torch.get_num_threads(),
            "device": str(device),
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "accelerate": accelerate.__version__,
            "python": sys.version.split()[0],
            "load_average": os.getloadavg(),
        },
        "setup": {
            "model": name,
            "objective": "masked LM (15% masking, 80/10/10)",
            "steps": args.steps,
            "rounds": args.rounds,
            "batch_size": BATCH,
            "max_length": MAX_LENGTH,
            "learning_rate": LEARNING_RATE,
            "warmup": warmup,
            "weight_decay": 0.01,
            "seed": SEED,
            "sentences": len(data),
        },
        "runs": runs,
    }
    target = args.out or results_path("trainer_choice", device)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(record, indent=2) + "\n")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
