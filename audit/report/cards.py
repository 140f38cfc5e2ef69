"""Measure cards for the report: from the measure registry, by a measurement's label."""

from __future__ import annotations

from audit.measures.base import MeasureCard
from audit.report.model import CardView


def base_name(label: str) -> str:
    """The measure name of a label: `jss[compat=reference]` -> `jss`."""
    return label.split("[", 1)[0]


def card_for(label: str) -> MeasureCard | None:
    """The card of the measure behind `label`, or None for a measure the registry lacks."""
    from audit.measures.catalog import MEASURES

    name = base_name(label)
    if name in MEASURES:
        card = MEASURES.entry(name).meta.get("card")
        if isinstance(card, MeasureCard):
            return card
    from audit.measures.cards import ALL_CARDS

    return next((c for c in ALL_CARDS if c.name == name), None)


def ideal_value(label: str) -> float | None:
    """The unbiased value of a measure (its card's `ideal_value`), None when it has none."""
    card = card_for(label)
    return None if card is None else card.ideal_value


def measure_title(label: str) -> str:
    """A column heading for a measure: its card title's short form, with any options."""
    card = card_for(label)
    if card is None:
        return label
    options = label[len(base_name(label)) :]
    short = card.title.split(" (", 1)[0]
    return f"{short}{options}"


def card_view(label: str) -> CardView | None:
    """The card as the report prints it."""
    card = card_for(label)
    if card is None:
        return None
    return CardView(
        name=label,
        title=card.title,
        what=card.what,
        inputs=card.inputs,
        direction=card.direction,
        ideal=card.ideal,
        citation=card.citation,
        limitations=list(card.limitations),
    )
