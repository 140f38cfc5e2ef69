"""Dropout debiasing (Webster et al. 2020): continued LM training on the corpus with
attention dropout 0.15 and hidden dropout 0.2."""

from __future__ import annotations

from typing import TYPE_CHECKING

from audit.variants.methods.base import MethodContext, VariantMethod, VariantPart, single_part
from audit.variants.methods.options import DropoutOptions

if TYPE_CHECKING:
    from audit.variants.corpus import Corpus
    from audit.variants.objective import Objective, TrainingData


def training_data(
    corpus: Corpus, options: DropoutOptions, part: VariantPart, context: MethodContext
) -> TrainingData:
    from audit.variants.objective import TrainingData

    return TrainingData(sentences=tuple(corpus.sentences))


def objective(options: DropoutOptions) -> Objective:
    from audit.variants.objective import Objective

    return Objective(
        kind="lm",
        attention_dropout=options.attention_dropout,
        hidden_dropout=options.hidden_dropout,
    )


METHOD = VariantMethod(parts=single_part, training_data=training_data, objective=objective)
