"""The words of a run's steps, one line per piece of work: `AuditPlan.steps()` says what
a run will do in them, and `executed_steps` what a run did, read from its results (a test
compares the two). Train, score, fine-tune, measure (SEAT last, per model)."""

from __future__ import annotations

from collections import Counter

from audit.ids import PluginId
from audit.pipeline.seat_plan import seat_step
from audit.results import AuditResult

__all__ = ["executed_steps", "finetune_step", "unit_line"]


def unit_line(model: str, dataset: str, scorer: PluginId) -> str:
    """A score unit as `audit plan` lists it: 'model x dataset x scorer'."""
    return f"{model} x {dataset} x {scorer.label}"


def finetune_step(task: str, model: str, seed: int | None = None) -> str:
    """A fine-tuning as `audit plan` lists it; `seed` when its task has several."""
    return f"fine-tune {task} on {model}" + ("" if seed is None else f" (seed {seed})")


def executed_steps(result: AuditResult) -> list[str]:
    """What a run did, read from its results, in the words of `AuditPlan.steps()`."""
    lines = [f"train {v.id} ({v.method.label} of {v.base})" for v in result.variants]
    lines += [f"score {unit_line(u.model, u.dataset, u.scorer)}" for u in result.units]
    if result.lm_quality is not None:
        lines += [
            f"score {unit_line(u.model, u.dataset, u.scorer)}" for u in result.lm_quality.units
        ]
    for r in result.extrinsic:  # one line per fine-tuning: each seed's, when several
        seeds: list[int | None] = [s.seed for s in r.seeds] or [None]
        lines += [finetune_step(r.task, r.model, seed) for seed in seeds]
    scored = {(u.model, u.dataset, u.scorer) for u in result.units}
    measured = dict.fromkeys(
        (m.measure, m.model, m.dataset, m.scorer)
        for m in result.measurements
        if (m.model, m.dataset, m.scorer) in scored
    )
    lines += [f"measure {ms.label} on {unit_line(m, d, sc)}" for ms, m, d, sc in measured]
    lines += [
        f"measure {m.measure.label} on the corpus"
        for m in result.measurements
        if m.model == "corpus"
    ]
    if result.seat is not None:
        ran = Counter((r.measure.label, r.model) for r in result.seat.tests)
        measures = {r.measure.label: r.measure for r in result.seat.tests}
        lines += [seat_step(measures[label], model, n) for (label, model), n in ran.items()]
    return lines
