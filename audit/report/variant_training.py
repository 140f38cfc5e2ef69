"""How each variant was trained, for the Variants section: the training table (settings,
time, loss) and the loss curves, in the order of the spec's variant entries."""

from __future__ import annotations

from typing import Any

import pandas as pd

from audit.report import cells
from audit.report.charts import small_multiples
from audit.report.formatting import fmt_num, fmt_seconds
from audit.report.index import MeasurementIndex
from audit.report.model import Chart, Table
from audit.results import VariantRecord


def ordered_variants(index: MeasurementIndex) -> list[VariantRecord]:
    return [v for entry in index.variants.entries().values() for v in entry]


def _setting(training: dict[str, Any], key: str) -> Any:
    return training.get(key)


#: The training objectives of TrainingSummary in words.
OBJECTIVES = {
    "masked_lm": "masked LM",
    "causal_lm": "next-token LM",
    "at": "AT: debias + regulariser",
}


def _lora(v: VariantRecord) -> cells.Cell:
    lora = _setting(v.training, "lora")
    if not lora:
        return cells.text("no")
    parts = (
        [f"rank {lora.get('r')}", f"alpha {lora.get('alpha')}"] if isinstance(lora, dict) else []
    )
    trainable = v.summary.trainable_parameters
    note = f"{trainable:,} trainable parameters" if trainable is not None else ""
    return cells.text(", ".join(parts) or "yes", note=note)


def training_table(index: MeasurementIndex) -> Table:
    """How each variant was trained: settings, time and loss."""
    maker = cells.TableMaker(
        id="variant-training",
        title="Training of each variant",
        caption="Continued training of the base model with its own objective. Steps: "
        "optimiser steps trained; time: the training itself, all sessions (a variant from "
        "the cache was trained by an earlier run); loss: mean of the first and of the last "
        "logged window of steps.",
        columns=[
            "Variant",
            "Objective",
            "Steps",
            "Learning rate",
            "Batch",
            "Max length",
            "Seed",
            "LoRA",
            "Device",
            "Time",
            "Loss first → last",
        ],
    )
    for v in ordered_variants(index):
        s = v.summary
        epochs = _setting(v.training, "epochs")
        steps_note = f"{epochs:g} epoch(s) of {s.examples:,} examples" if epochs else ""
        lr = _setting(v.training, "learning_rate")
        seed = _setting(v.training, "seed")  # none for a variant with no training settings
        loss = (
            f"{fmt_num(s.first_loss, 3)}\u00a0→\u00a0{fmt_num(s.last_loss, 3)}"
            if s.first_loss is not None and s.last_loss is not None
            else "—"
        )
        maker.add(
            [
                cells.text(v.id),
                cells.text(OBJECTIVES.get(s.objective, s.objective)),
                cells.Cell(kind="count", value=float(s.steps), note=steps_note),
                cells.text(f"{lr:g}" if isinstance(lr, int | float) else "—"),
                cells.count(_setting(v.training, "batch_size")),
                cells.count(_setting(v.training, "max_length")),
                cells.text("—" if seed is None else str(seed)),
                _lora(v),
                cells.text(s.device),
                cells.text(fmt_seconds(s.seconds).replace(" ", "\u00a0")),
                cells.text(loss),
            ]
        )
    return maker.table().model_copy(update={"long_rows": True, "detail": True})


def loss_chart(index: MeasurementIndex) -> Chart | None:
    """The loss curve of every variant that logged at least two windows."""
    rows = [
        {"variant": v.id, "step": p.step, "loss": p.loss}
        for v in index.variants.records.values()
        if len(v.summary.curve) >= 2
        for p in v.summary.curve
    ]
    if not rows:
        return None
    order = [v.id for entry in index.variants.entries().values() for v in entry]
    frame = pd.DataFrame(rows)
    drawn = [m for m in order if m in set(frame["variant"])]
    return Chart(
        id="variant-loss-chart",
        title="Training loss of each variant",
        caption="Mean training loss of each logged window of steps, one panel per variant "
        "(each with its own scale). " + index.variants.legend(drawn),
        spec=small_multiples(
            frame,
            x="step",
            y="loss",
            facet="variant",
            order=drawn,
        ),
        alt="Training loss per step of " + ", ".join(drawn),
        detail=True,
    )
