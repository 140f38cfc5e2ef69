"""The registry of extrinsic tasks: bias measured in a downstream task after fine-tuning
(STS-bias, BiasBios, NLI-bias; METHODS.md section 6).

No task is registered yet. A task is one `ExtrinsicTaskEntry` registered here: its card
(roles include `extrinsic`), its options model, the model types it supports, and the lazy
path of its implementation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from audit.registry import PluginEntry, Registry


@dataclass(frozen=True)
class ExtrinsicTaskEntry(PluginEntry):
    """An extrinsic task: which model types it can fine-tune and measure."""

    model_types: frozenset[str] = frozenset({"masked", "causal"})


EXTRINSIC_TASKS: Registry[ExtrinsicTaskEntry, Any] = Registry("extrinsic_task")
