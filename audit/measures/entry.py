"""The measure registry's entry, the registry itself and how a measure is registered and
loaded. The built-in measures register in `builtin_measures.py` and `builtin_seat_bbq.py`;
`catalog.py` imports them in headline-preference order. Imports no numerical library.
"""

from __future__ import annotations

from dataclasses import dataclass

from audit.cards import PluginCard, Role
from audit.measures.base import CorpusMeasure, Measure, MeasureOptions
from audit.registry import PluginEntry, Registry


@dataclass(frozen=True)
class MeasureEntry(PluginEntry):
    """A registered measure. Its card's `shape` is the input it takes: `pairs` and
    `labelled` (a dataset's scores, computed by a `Measure`) or `corpus` (a text corpus
    named in its options, computed by a `CorpusMeasure`)."""

    options: type[MeasureOptions]


MEASURES: Registry[MeasureEntry, Measure | CorpusMeasure] = Registry("measure", MeasureEntry)


def register_measure(
    *,
    name: str,
    title: str,
    shape: str,
    roles: tuple[Role, ...],
    ideal_value: float | None,
    options: type[MeasureOptions],
    target: str,
    what: str,
    inputs: str,
    direction: str,
    ideal: str,
    citation: str,
    limitations: tuple[str, ...],
    table_title: str = "",
    table_caption: str = "",
    table_value_heading: str = "",
) -> MeasureEntry:
    """Register one measure (its listing summary is its title; the `table_*` texts title
    the own table of a `diagnostic` measure)."""
    card = PluginCard(
        kind="measure",
        name=name,
        title=title,
        summary=title,
        shape=shape,
        roles=roles,
        ideal_value=ideal_value,
        what=what,
        inputs=inputs,
        direction=direction,
        ideal=ideal,
        citation=citation,
        limitations=limitations,
        table_title=table_title,
        table_caption=table_caption,
        table_value_heading=table_value_heading,
    )
    return MEASURES.register(MeasureEntry(card=card, options=options, target=target))


def load_measure(name: str) -> Measure:
    """The implementation of a measure of a dataset's scores (shape `pairs`/`labelled`)."""
    measure = MEASURES.load(name)
    if not isinstance(measure, Measure):
        raise TypeError(f"measure '{name}' is a {MEASURES.entry(name).shape} measure")
    return measure


def load_corpus_measure(name: str) -> CorpusMeasure:
    """The implementation of a measure of a text corpus (shape `corpus`)."""
    measure = MEASURES.load(name)
    if not isinstance(measure, CorpusMeasure):
        raise TypeError(f"measure '{name}' is a {MEASURES.entry(name).shape} measure")
    return measure
