"""The scoring stage's units as its overall ETA counts them (`audit.overall_eta`)."""

from __future__ import annotations

from collections.abc import Sequence

from audit.executor import ModelWork
from audit.overall_eta import QueuedUnit
from audit.pipeline.audit_plan import AuditPlan
from audit.pipeline.worker import RunModels
from audit.scoring.units import ScoreUnit


def progress_key(unit: ScoreUnit) -> str:
    """The key of a unit's progress bar, as the scoring runner and executors start it."""
    return f"{unit.model}/{unit.dataset}/{unit.scorer.label}"


def queued_units(work: Sequence[ModelWork], plan: AuditPlan, models: RunModels) -> list[QueuedUnit]:
    """Every unit of `work` with the sentences it scores (as its bar counts them, before
    the cache is looked at: looking would set aside a corrupt cache file before the unit
    itself opens it), one queue per model (a model's units run one after another)."""
    from audit.scoring.runner import unit_input, unit_jobs

    queued = []
    for group in work:
        known = group.model in models
        for unit in group.units:
            shape = unit_input(unit.scorer)
            chat = models[group.model].chat_for(unit.dataset) if known else None
            jobs = unit_jobs(unit.scorer, plan.dataset(unit.dataset), chat)
            size = sum(shape.work(j.texts) for j in jobs)
            queued.append(QueuedUnit(progress_key(unit), size, group.model))
    return queued
