"""Running an audit's work on a Ray cluster: each model's scoring units and each variant
training job become Ray tasks; the workers send their scores and trained models back, and
the run alone writes the caches and results (`docs/scaling.md`).

`executor_for` picks the executor a spec's `execution:` section (or `audit run
--executor`) names. Ray is an optional extra: nothing here imports it until a Ray
executor is made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from audit.executor import Executor, InProcessExecutor

if TYPE_CHECKING:
    from audit.spec.models import ExecutionSpec


def executor_for(execution: ExecutionSpec) -> Executor:
    """The executor of `execution.executor`: in this process, or on Ray (which must be
    installed: `pip install 'bias-audit[ray]'`)."""
    if execution.executor == "in-process":
        return InProcessExecutor()
    from audit.cluster.ray_executor import RayExecutor, RaySettings

    return RayExecutor(
        RaySettings(
            address=execution.address,
            cpus_per_task=execution.cpus_per_task,
            gpus_per_task=execution.gpus_per_task,
            max_retries=execution.max_retries,
        )
    )
