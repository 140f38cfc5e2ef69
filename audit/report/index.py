"""Look-ups over a result's flat measurement list, as the report builders need them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeVar

from audit.ids import PluginId
from audit.report.cards import MeasureCards
from audit.results import AuditResult, Measurement

K = TypeVar("K")


@dataclass(frozen=True)
class Unit:
    """A model x scorer on one dataset: one column (or row) of a side-by-side table."""

    model: str
    scorer: PluginId
    label: str


class MeasurementIndex:
    """Measurements by (model, dataset, scorer, measure, group), what exists, and the
    measure cards of the result."""

    def __init__(self, result: AuditResult) -> None:
        self.result = result
        self.cards = MeasureCards.of(result)
        self._by_key: dict[tuple[str, str, PluginId, PluginId, str], Measurement] = {
            (m.model, m.dataset, m.scorer, m.measure, m.group): m for m in result.measurements
        }
        self.model_order = [m.id for m in result.models]

    def get(self, unit: Unit, dataset: str, measure: PluginId, group: str) -> Measurement | None:
        return self._by_key.get((unit.model, dataset, unit.scorer, measure, group))

    def of_dataset(self, dataset: str) -> list[Measurement]:
        return [m for m in self.result.measurements if m.dataset == dataset]

    def units(self, dataset: str) -> list[Unit]:
        """The model x scorer combinations measured on `dataset`, in the spec's model order."""
        seen: dict[tuple[str, PluginId], None] = {}
        for m in self.of_dataset(dataset):
            seen.setdefault((m.model, m.scorer), None)
        pairs = sorted(seen, key=lambda p: (self._model_rank(p[0]), p[1].label))
        scorers_per_model: dict[str, int] = {}
        for model, _ in pairs:
            scorers_per_model[model] = scorers_per_model.get(model, 0) + 1
        return [
            Unit(
                model,
                scorer,
                model if scorers_per_model[model] == 1 else f"{model} ({scorer.label})",
            )
            for model, scorer in pairs
        ]

    def measures(self, dataset: str, *, diagnostics: bool = False) -> list[PluginId]:
        """Measures on `dataset` in first-seen order (diagnostic measures left out by default)."""
        ids = unique(m.measure for m in self.of_dataset(dataset))
        return [m for m in ids if diagnostics or not self.cards.has_role(m, "diagnostic")]

    def gaussian_measures(self, dataset: str) -> list[PluginId]:
        """Measures computed on `dataset` that fit Gaussians to the score sets (KLS, JSS)."""
        return [m for m in self.measures(dataset) if self.cards.fits_gaussians(m)]

    def measures_named(self, dataset: str, name: str) -> list[PluginId]:
        """The measures of one name (any options) on `dataset`."""
        return [m for m in self.measures(dataset, diagnostics=True) if m.name == name]

    def groups(self, dataset: str, measure: PluginId) -> list[str]:
        """The groups (bias types or target groups) of a measure, 'all' left out."""
        return unique(
            m.group for m in self.of_dataset(dataset) if m.measure == measure and m.group != "all"
        )

    def _model_rank(self, model: str) -> int:
        return self.model_order.index(model) if model in self.model_order else len(self.model_order)


def unique(values: Iterable[K]) -> list[K]:
    """The values in first-seen order, each once."""
    return list(dict.fromkeys(values))
