"""The training stage of a run: the planned variant jobs missing from the cache are
trained where the executor runs work, and every variant joins the run's models as the
local model folder it was stored in (its score units were planned already)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from audit.display import Display
    from audit.executor import Executor
    from audit.pipeline.audit_plan import AuditPlan
    from audit.pipeline.worker import RunWorker
    from audit.variants.cache import StoredVariant


@dataclass
class TrainedVariants:
    """Every planned variant as stored, and which of them this run trained."""

    stored: dict[str, StoredVariant] = field(default_factory=dict)
    trained_now: set[str] = field(default_factory=set)


def train_variants(
    plan: AuditPlan, worker: RunWorker, executor: Executor, display: Display
) -> TrainedVariants:
    """Train the planned variants missing from the cache, then prepare every variant not
    prepared yet as a local model (its fingerprint comes from the trained files)."""
    out = TrainedVariants(stored=dict(plan.stored_variants))
    missing = [job for job in plan.variant_jobs if job.model_id not in out.stored]
    if missing:
        display.stage("variants")
        built = executor.train(missing, worker)
        out.stored.update(built)
        out.trained_now.update(built)
    for job in plan.variant_jobs:
        stored = out.stored.get(job.model_id)
        if stored is not None and job.model_id not in worker.models:
            variant = worker.loader.prepare(plan.variant_spec(job.model_id, stored))
            worker.models.add(job.model_id, variant.with_chats_of(worker.models[job.base]))
    return out
