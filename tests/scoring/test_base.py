"""The one scorer base: each registered scorer's object has its registered shape, and
the calls outside a shape refuse with the message that says what to use instead."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from audit.scoring.base import (
    PairScorer,
    ScorerOptions,
    ScoringCall,
    ScoringInputError,
    SentenceScore,
    SentenceScorer,
    ShapedScorer,
    TemplateScorer,
)
from audit.scoring.catalog import SCORERS

OPTIONS = ScorerOptions()
MODEL: Any = None  # the refusing calls never touch the model


def _none(_n: int) -> None:
    return None


@pytest.mark.parametrize("name", SCORERS.names())
def test_each_scorer_object_has_its_registered_shape(name: str) -> None:
    scorer = SCORERS.load(name)
    assert isinstance(scorer, ShapedScorer)
    assert scorer.shape == SCORERS.entry(name).info.unit


@dataclass(frozen=True)
class Lengths(SentenceScorer):
    """A sentence scorer for the test: the score is the sentence's length."""

    name: str = "lengths"

    def score_sentences(
        self, model: Any, texts: Sequence[str], call: ScoringCall
    ) -> list[SentenceScore]:
        call.progress(len(texts))
        return [SentenceScore(float(len(t)), len(t)) for t in texts]


def test_a_sentence_scorer_scores_pairs_side_by_side() -> None:
    seen: list[int] = []
    pairs = [("ab", "abc"), ("a", "")]
    got = Lengths().score_pairs(MODEL, pairs, ScoringCall(OPTIONS, seen.append))
    assert got == [
        (SentenceScore(2.0, 2), SentenceScore(3.0, 3)),
        (SentenceScore(1.0, 1), SentenceScore(0.0, 0)),
    ]
    assert seen == [4]


@dataclass(frozen=True)
class NoPairs(PairScorer):
    name: str = "nopairs"


@dataclass(frozen=True)
class NoSlots(TemplateScorer):
    name: str = "noslots"


def test_calls_outside_the_shape_say_what_to_use() -> None:
    with pytest.raises(ScoringInputError, match="scores sentences, not template slots"):
        Lengths().score_slots(MODEL, [], ScoringCall(OPTIONS, _none))
    with pytest.raises(ScoringInputError, match="for single sentences use pll, pppl, aul"):
        NoPairs().score_sentences(MODEL, ["x"], ScoringCall(OPTIONS, _none))
    with pytest.raises(ScoringInputError, match="scores sentences, not template slots"):
        NoPairs().score_slots(MODEL, [], ScoringCall(OPTIONS, _none))
    for method in (NoSlots().score_sentences, NoSlots().score_pairs):
        with pytest.raises(ScoringInputError, match="noslots scores template items"):
            method(MODEL, [], ScoringCall(OPTIONS, _none))


def test_a_scorer_that_misses_its_own_call_is_a_programming_error() -> None:
    with pytest.raises(NotImplementedError, match="NoPairs is a pair scorer"):
        NoPairs().score_pairs(MODEL, [("a", "b")], ScoringCall(OPTIONS, _none))
    with pytest.raises(NotImplementedError, match="NoSlots is a template scorer"):
        NoSlots().score_slots(MODEL, [], ScoringCall(OPTIONS, _none))
