"""The extrinsic stage of a run: each planned task's head fine-tuned (or read from the
cache) on its models, `finetune.seeds` times each, in float32, and measured
(`audit.extrinsic.stage.run_extrinsic`): the records for results.json and, in memory,
each record's value on resamples of its task's evaluation items (for the studies)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from audit.display import Display
    from audit.extrinsic.stage import ExtrinsicOutcome
    from audit.models.loaded import LoadedModel
    from audit.models.prepared import ModelLoader
    from audit.pipeline.audit_plan import AuditPlan
    from audit.pipeline.worker import RunModels


def run_extrinsic_tasks(
    plan: AuditPlan, models: RunModels, loader: ModelLoader, display: Display
) -> ExtrinsicOutcome:
    """Fine-tune and measure the planned extrinsic tasks on the run's models."""
    from audit.extrinsic.stage import run_extrinsic

    def load(model_id: str) -> LoadedModel:
        return loader.load(models[model_id], float32=True)

    spec = plan.loaded.spec
    display.stage("extrinsic")
    for task in plan.extrinsic:
        for model_id, reason in task.left_out:
            display.info(f"{task.name}: {model_id} left out: {reason}")
    return run_extrinsic(
        plan.extrinsic,
        load_model=load,
        cache_dir=plan.settings.cache_dir,
        seed=spec.seed,
        n_bootstrap=spec.bootstrap,
        alpha=spec.alpha,
        display=display,
        model_order=models.ids(),
    )
