"""AT's own training data (`TrainingData.own`): the target and attribute sentences and the
word lists its loss reads. No torch: AT's method builds it while planning."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from audit.variants.objective import TrainingData


@dataclass(frozen=True)
class AtData:
    """Target sentences (a target word, no attribute word), attribute sentences (an
    attribute word), the attribute words by class, and the target words found."""

    target_sentences: tuple[str, ...] = ()
    attribute_sentences: tuple[str, ...] = ()
    attribute_words: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    target_words: tuple[str, ...] = ()

    def n_examples(self) -> int:
        return len(self.target_sentences) + len(self.attribute_sentences)

    def training_texts(self) -> tuple[str, ...]:
        return (*self.target_sentences, *self.attribute_sentences)

    def key_fields(self) -> dict[str, Any]:
        return {
            "target_sentences": self.target_sentences,
            "attribute_sentences": self.attribute_sentences,
            "attribute_words": {k: tuple(v) for k, v in self.attribute_words.items()},
            "target_words": self.target_words,
        }


def at_training_data(
    *,
    target_sentences: tuple[str, ...] = (),
    attribute_sentences: tuple[str, ...] = (),
    attribute_words: Mapping[str, tuple[str, ...]] | None = None,
    target_words: tuple[str, ...] = (),
) -> TrainingData:
    """AT's `TrainingData` (its own data, no LM sentences)."""
    own = AtData(
        target_sentences=tuple(target_sentences),
        attribute_sentences=tuple(attribute_sentences),
        attribute_words=dict(attribute_words or {}),
        target_words=tuple(target_words),
    )
    return TrainingData(own=own)
