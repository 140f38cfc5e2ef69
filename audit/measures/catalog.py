"""The measure registry. Importing this module imports no numerical library: each entry
carries its shape, card and options model; the implementation is imported on first use."""

from __future__ import annotations

from audit.measures import cards
from audit.measures.base import Measure, MeasureCard, MeasureOptions
from audit.measures.options import (
    DivergenceOptions,
    FormulaOnlyOptions,
    IlpsOptions,
    NormalityOptions,
    SafetyScoreOptions,
)
from audit.registry import Registry

MEASURES: Registry[Measure] = Registry("measure")


def measure_shape(name: str) -> str:
    """'pairs', 'labelled', or 'corpus' (ILPS: reads a corpus named in its options)."""
    shape = MEASURES.entry(name).meta["applies_to"]
    assert isinstance(shape, str)
    return shape


def measure_options_model(name: str) -> type[MeasureOptions]:
    options = MEASURES.entry(name).meta["options"]
    assert isinstance(options, type) and issubclass(options, MeasureOptions)
    return options


def measure_card(name: str) -> MeasureCard:
    card = MEASURES.entry(name).meta["card"]
    assert isinstance(card, MeasureCard)
    return card


def _register(
    card: MeasureCard, target: str, applies_to: str, options: type[MeasureOptions]
) -> None:
    summary = card.title
    MEASURES.register(card.name, target, summary, applies_to=applies_to, options=options, card=card)


_register(cards.BIAS_SCORE, "audit.measures.indicator:BIAS_SCORE", "pairs", FormulaOnlyOptions)
_register(cards.KLS, "audit.measures.divergence:KLS", "pairs", DivergenceOptions)
_register(cards.JSS, "audit.measures.divergence:JSS", "pairs", DivergenceOptions)
_register(cards.SCORE_GAP, "audit.measures.indicator:SCORE_GAP", "pairs", FormulaOnlyOptions)
_register(cards.NORMALITY, "audit.measures.normality:NORMALITY", "pairs", NormalityOptions)
_register(cards.SAFETY_SCORE, "audit.measures.safety:SAFETY_SCORE", "labelled", SafetyScoreOptions)
_register(cards.LMS, "audit.measures.stereoset:LMS", "pairs", FormulaOnlyOptions)
_register(cards.SS, "audit.measures.stereoset:SS", "pairs", FormulaOnlyOptions)
_register(cards.ICAT, "audit.measures.stereoset:ICAT", "pairs", FormulaOnlyOptions)
_register(cards.ILPS, "audit.measures.ilps:ILPS", "corpus", IlpsOptions)
