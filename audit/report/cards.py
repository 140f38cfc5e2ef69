"""Measure cards for the report: the snapshots results.json keeps (`result.plugins`)."""

from __future__ import annotations

from collections.abc import Iterable

from audit.cards import PluginCard, Role
from audit.ids import PluginId, label_of
from audit.report.formatting import lower_first, plain
from audit.report.model import CardView
from audit.results import AuditResult


class MeasureCards:
    """The measure cards of one result (or of several: the first card of a name wins),
    looked up by measure id; the scorer and dataset cards give their names for people."""

    def __init__(self, cards: Iterable[PluginCard]) -> None:
        self._cards: dict[str, PluginCard] = {}
        self._others: dict[tuple[str, str], PluginCard] = {}
        for card in cards:
            if card.kind in ("measure", "extrinsic_task"):  # an extrinsic task is measured
                self._cards.setdefault(card.name, card)
            else:
                self._others.setdefault((card.kind, card.name), card)

    @classmethod
    def of(cls, *results: AuditResult) -> MeasureCards:
        """The measure cards the results carry, in the order of their `plugins`."""
        return cls(card for result in results for card in result.plugins)

    def card(self, measure: PluginId) -> PluginCard | None:
        """The card of the measure behind `measure`, None when results.json has none."""
        return self._cards.get(measure.name)

    def card_named(self, name: str) -> PluginCard | None:
        """The measure (or extrinsic task) card of that name, None when there is none."""
        return self._cards.get(name)

    def ideal_value(self, measure: PluginId) -> float | None:
        """The unbiased value of a measure (its card's `ideal_value`), None when it has none."""
        card = self.card(measure)
        return None if card is None else card.ideal_value

    def has_role(self, measure: PluginId, role: Role) -> bool:
        card = self.card(measure)
        return card is not None and card.has_role(role)

    def fits_gaussians(self, measure: PluginId) -> bool:
        """Whether a measure fits Gaussians to the score sets (KLS, JSS): its `gaussian_fit`
        role."""
        return self.has_role(measure, "gaussian_fit")

    def names_with_role(self, role: Role) -> list[str]:
        """Names of the measures with `role`, in the order of `result.plugins`."""
        return [name for name, card in self._cards.items() if card.has_role(role)]

    def with_role(self, role: Role) -> list[PluginCard]:
        """The cards with `role`, in the order of `result.plugins`."""
        return [card for card in self._cards.values() if card.has_role(role)]

    def title(self, measure: PluginId) -> str:
        """A column heading for a measure: its card title's short form, with any options."""
        card = self.card(measure)
        if card is None:
            return measure.label
        return label_of(card.short_title, measure.options)

    def name(self, measure: PluginId) -> str:
        """A measure's name mid-sentence: 'bias score', 'KLS'."""
        return lower_first(self.title(measure))

    def scorer_name(self, scorer: PluginId) -> str:
        """A scorer for people: its card's title with the label, 'log-likelihood (ll)'; the
        label alone when the card says no more."""
        card = self._others.get(("scorer", scorer.name))
        title = "" if card is None else card.short_title
        if not title or title.lower() == scorer.name.lower():
            return scorer.label
        return f"{lower_first(title)} ({scorer.label})"

    def scorer_shape(self, scorer: PluginId) -> str | None:
        """The scorer card's `shape` ('pair' for a scorer of sentence pairs, 'sentence'),
        None when results.json has no card for it."""
        card = self._others.get(("scorer", scorer.name))
        return None if card is None else card.shape

    def dataset_title(self, dataset: str) -> str:
        """A dataset for people: its card's title ('CrowS-Pairs'), else its name."""
        card = self._others.get(("dataset", dataset))
        return dataset if card is None or not card.title else card.title

    def view(self, measure: PluginId) -> CardView | None:
        """The card as the report prints it."""
        card = self.card(measure)
        if card is None:
            return None
        return CardView(
            name=measure.label,
            title=card.title,
            version=card.version,
            what=plain(card.what),
            inputs=plain(card.inputs),
            direction=plain(card.direction),
            ideal=plain(card.ideal),
            citation=plain(card.citation),
            limitations=[plain(x) for x in card.limitations],
        )
