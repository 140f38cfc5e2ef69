"""Look-ups over a result's flat measurement list, as the report builders need them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise
from typing import TypeVar

from audit.cards import PluginCard
from audit.ids import PluginId
from audit.report.cards import MeasureCards
from audit.report.formatting import lower_first
from audit.results import AuditResult, ComparisonRecord, DatasetRecord, Measurement, VariantRecord

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
        self.variants = VariantLookup(result)

    def get(self, unit: Unit, dataset: str, measure: PluginId, group: str) -> Measurement | None:
        return self._by_key.get((unit.model, dataset, unit.scorer, measure, group))

    def of_dataset(self, dataset: str) -> list[Measurement]:
        return [m for m in self.result.measurements if m.dataset == dataset]

    def dataset_record(self, dataset: str) -> DatasetRecord | None:
        """The result's record of `dataset` (its shape, rows and groups), if it has one."""
        return next((d for d in self.result.datasets if d.name == dataset), None)

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

    def unit_parts(self, dataset: str, size: int) -> list[list[Unit]]:
        """The units of `dataset` in parts of at most `size`, for tables and charts with the
        models side by side: one part when they fit. Otherwise a base model and its variants
        stay together where they fit, and a family too large for one part is split with its
        base repeated at the head of every part, so each variant stands beside its base."""
        units = self.units(dataset)
        if len(units) <= size:
            return [units]
        families: dict[str, list[Unit]] = {}
        for unit in units:
            families.setdefault(self.variants.base_of(unit.model), []).append(unit)
        parts: list[list[Unit]] = []
        current: list[Unit] = []
        for base, members in families.items():
            if len(members) <= size:
                if len(current) + len(members) > size:
                    parts.append(current)
                    current = []
                current += members
                continue
            if current:
                parts.append(current)
                current = []
            head = [u for u in members if u.model == base]
            rest = [u for u in members if u.model != base]
            if not head or len(head) >= size:
                head, rest = [], members
            # As few parts as the size allows, filled evenly.
            step = size - len(head)
            n_parts = -(-len(rest) // step)
            cuts = [round(i * len(rest) / n_parts) for i in range(n_parts + 1)]
            parts += [head + rest[a:b] for a, b in pairwise(cuts)]
        if current:
            parts.append(current)
        return parts

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

    def breakdown_groups(self, dataset: str, measure: PluginId) -> list[str]:
        """The groups worth a per-group table or chart: none when there is one group and
        it holds every item (its values are then the whole dataset's, shown already)."""
        groups = self.groups(dataset, measure)
        if len(groups) != 1:
            return groups
        rows = [m for m in self.of_dataset(dataset) if m.measure == measure]
        n_all = {(m.model, m.scorer): m.n for m in rows if m.group == "all"}
        same = all(n_all.get((m.model, m.scorer)) == m.n for m in rows if m.group == groups[0])
        return [] if same and n_all else groups

    def _model_rank(self, model: str) -> int:
        return self.model_order.index(model) if model in self.model_order else len(self.model_order)


def unique(values: Iterable[K]) -> list[K]:
    """The values in first-seen order, each once."""
    return list(dict.fromkeys(values))


class VariantLookup:
    """The variants of a result by model id, and how to name them for people: 'CDA of
    minilm', 'bias-controlled fine-tuning of minilm, r = 0.3' (method names from the
    `variant_method` cards results.json keeps)."""

    def __init__(self, result: AuditResult) -> None:
        self.records = {v.id: v for v in result.variants}
        self._cards: dict[str, PluginCard] = {
            c.name: c for c in result.plugins if c.kind == "variant_method"
        }
        self._order = {m.id: i for i, m in enumerate(result.models)}

    def __bool__(self) -> bool:
        return bool(self.records)

    def get(self, model: str) -> VariantRecord | None:
        return self.records.get(model)

    def is_variant(self, model: str) -> bool:
        return model in self.records

    def base_of(self, model: str) -> str:
        """The base model of a variant; a model that is no variant is its own base."""
        record = self.records.get(model)
        return model if record is None else record.base

    def method_title(self, record: VariantRecord) -> str:
        """The method's full title from its card ('Counterfactual data augmentation
        (CDA)'), else its name."""
        card = self._cards.get(record.method.name)
        return card.title if card is not None and card.title else record.method.name

    def method_name(self, record: VariantRecord) -> str:
        """The method mid-sentence: the abbreviation its card title gives in brackets
        ('CDA', 'AT'), else the title's short form ('dropout debiasing'), else its name."""
        card = self._cards.get(record.method.name)
        if card is None or not card.title:
            return record.method.name
        head, _, rest = card.title.partition(" (")
        short = rest.rstrip(")")
        if short and " " not in short and len(short) <= 8:
            return short
        return lower_first(head)

    def method_words(self, model: str) -> str:
        """A variant's method (and ratio) without its base: 'CDA', 'bias-controlled
        fine-tuning, r = 0.3'; '' for a model that is no variant."""
        record = self.records.get(model)
        if record is None:
            return ""
        name = self.method_name(record)
        return name if record.ratio is None else f"{name}, r = {record.ratio:g}"

    def describe(self, model: str) -> str:
        """A variant for people, '' for a model that is no variant."""
        record = self.records.get(model)
        if record is None:
            return ""
        text = f"{self.method_name(record)} of {record.base}"
        return text if record.ratio is None else f"{text}, r = {record.ratio:g}"

    def is_base_comparison(self, record: ComparisonRecord) -> bool:
        """A comparison of a variant (model A) with its own base (model B)."""
        variant = self.records.get(record.model_a)
        return variant is not None and variant.base == record.model_b

    def entries(self) -> dict[str, list[VariantRecord]]:
        """The variants by the spec's variant entry (ratio models share one), in model order."""
        ordered = sorted(
            self.records.values(), key=lambda v: self._order.get(v.id, len(self._order))
        )
        found: dict[str, list[VariantRecord]] = {}
        for record in ordered:
            found.setdefault(record.entry, []).append(record)
        return found

    def legend(self, models: Iterable[str]) -> str:
        """Which of `models` are variants, in one sentence for a chart caption ('' when none
        is): the ratio models of one entry are named together."""
        shown = [m for m in unique(models) if m in self.records]
        if not shown:
            return ""
        parts: list[str] = []
        done: set[str] = set()
        for model in shown:
            if model in done:
                continue
            record = self.records[model]
            if record.ratio is None:
                parts.append(f"{model} is {self.describe(model)}")
                done.add(model)
                continue
            mates = [m for m in shown if self.records[m].entry == record.entry]
            done.update(mates)
            ratios = [self.records[m].ratio for m in mates]
            if len(mates) == 1:
                parts.append(f"{model} is {self.describe(model)}")
                continue
            low, high = (
                min(r for r in ratios if r is not None),
                max(r for r in ratios if r is not None),
            )
            parts.append(
                f"{mates[0]} to {mates[-1]} are {self.method_name(record)} of {record.base} at "
                f"male shares r = {low:g} to {high:g}"
            )
        return "Variants: " + "; ".join(parts) + "."
