"""A post-hoc projection's own training data (`TrainingData.own` of INLP and
SentenceDebias): sentences by label (a class, or the position in a counterfactual set,
rows aligned across labels). No weights are trained on them: `fit` encodes them once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from audit.variants.objective import TrainingData


@dataclass(frozen=True)
class LabelledSentences:
    labelled: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def n_examples(self) -> int:
        return sum(len(v) for v in self.labelled.values())

    def training_texts(self) -> tuple[str, ...]:
        return ()  # a projection trains no weights

    def key_fields(self) -> dict[str, Any]:
        return {"labelled": {k: tuple(v) for k, v in self.labelled.items()}}

    def sentences(self) -> list[str]:
        """Every labelled sentence, label after label."""
        return [s for group in self.labelled.values() for s in group]


def labelled_of(data: TrainingData) -> Mapping[str, tuple[str, ...]]:
    """The sentences by label of a projection's data."""
    return data.own_as(LabelledSentences).labelled


def labelled_data(labelled: Mapping[str, tuple[str, ...]]) -> TrainingData:
    """A projection's `TrainingData`."""
    from audit.variants.objective import TrainingData

    return TrainingData(own=LabelledSentences(dict(labelled)))
