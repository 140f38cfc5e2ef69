"""The registry of variant methods: ways of deriving a debiased or controlled version of a
base model (CDA, dropout, AT, bias-controlled fine-tuning; METHODS.md section 5).

No method is registered yet. A method is one `VariantMethodEntry` registered here: its
card, its options model, the model types it can train, and the lazy path of its trainer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from audit.registry import PluginEntry, Registry


@dataclass(frozen=True)
class VariantMethodEntry(PluginEntry):
    """A variant method: what it trains, on which model types."""

    model_types: frozenset[str] = frozenset({"masked", "causal"})


VARIANT_METHODS: Registry[VariantMethodEntry, Any] = Registry("variant_method")
