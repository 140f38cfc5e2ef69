"""What the cross-model studies take from the spec, and what they give back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from audit.ids import PluginId
from audit.results import ComparisonRecord, CorrelationRecord, RobustnessRecord
from audit.results.studies import (
    DOWNSTREAM_FAMILY,
    MODEL_FAMILY,
    RATIO_FAMILY,
    VARIANT_FAMILY,
)

__all__ = [
    "DOWNSTREAM_FAMILY",
    "MODEL_FAMILY",
    "RATIO_FAMILY",
    "VARIANT_FAMILY",
    "ItemReplicates",
    "SeriesKey",
    "Studies",
    "StudySettings",
    "UnitKey",
]

if TYPE_CHECKING:
    import numpy as np

    from audit.spec.models import RobustnessSpec
    from audit.stats.multiple_testing import Correction

UnitKey = tuple[str, str, PluginId]  # (model, dataset, scorer)


@dataclass(frozen=True)
class StudySettings:
    """What the studies take from the spec."""

    model_order: Sequence[str]
    seed: int
    alpha: float
    bootstrap: int
    robustness: RobustnessSpec | None = None
    variant_bases: Mapping[str, str] = field(default_factory=dict)
    #: Variants that are bias-controlled ratio models (their comparisons are a family).
    ratio_models: frozenset[str] = frozenset()
    #: Correlations: the multiple-comparison correction of each family of tests.
    correction: Correction = "holm"
    #: Correlations: keep extrinsic values whose fine-tuning failed the dev check.
    keep_failed_dev_check: bool = False
    #: Correlations: the population Kendall tau a conclusive table detects with `power`.
    effect_size: float = 0.5
    power: float = 0.8
    #: Comparisons: the correction over each family, and the power of the detectable
    #: difference.
    comparison_correction: Correction = "holm"
    comparison_power: float = 0.8
    #: Each model's type (masked, causal): a correlation names the families it mixes.
    model_types: Mapping[str, str] = field(default_factory=dict)

    def compared(self, a: str, b: str) -> bool:
        """Whether model a (later) is compared with b (earlier): two spec models always;
        a variant only with its own base."""
        base_a, base_b = self.variant_bases.get(a), self.variant_bases.get(b)
        if base_a is None and base_b is None:
            return True
        return base_a == b

    def comparison_family(self, record: ComparisonRecord) -> str:
        """The family a comparison is corrected in (the set page 1 counts)."""
        if record.model_a in self.ratio_models:
            return RATIO_FAMILY
        if record.model_a in self.variant_bases:
            return VARIANT_FAMILY
        return MODEL_FAMILY


#: A series' item replicates: (measure key, dataset, scorer key) -> model -> the measure's
#: value on each of the audit's item resamples (shape (B,)).
SeriesKey = tuple[tuple[str, str], str, tuple[str, str] | None]
ItemReplicates = dict[SeriesKey, dict[str, "np.ndarray"]]


@dataclass
class Studies:
    robustness: list[RobustnessRecord] = field(default_factory=list)
    correlations: list[CorrelationRecord] = field(default_factory=list)
    comparisons: list[ComparisonRecord] = field(default_factory=list)
    #: In memory only (not in results.json): each intrinsic series' values on the item
    #: resamples, for the two-level bootstraps (correlations, the meta-evaluation).
    replicates: ItemReplicates = field(default_factory=dict)
