"""CDA: continued LM training on the corpus plus a gender-swapped copy of every sentence
the swap changes (both directions, case kept, whole words; `audit.variants.cda`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from audit.errors import AuditUserError
from audit.variants.methods.base import MethodContext, VariantMethod, VariantPart, single_part
from audit.variants.methods.options import CdaOptions

if TYPE_CHECKING:
    from audit.variants.corpus import Corpus
    from audit.variants.objective import Objective, TrainingData


def training_data(
    corpus: Corpus, options: CdaOptions, part: VariantPart, context: MethodContext
) -> TrainingData:
    from audit.variants.cda import CounterfactualSwapper
    from audit.variants.objective import TrainingData

    swapper = CounterfactualSwapper(context.word_lists(options.word_lists))
    sentences = list(corpus.sentences)
    if options.only_gendered:
        sentences = [s for s in sentences if swapper.regex.search(s)]
    augmented = swapper.augment(sentences)
    if len(augmented) == len(sentences):
        raise AuditUserError(
            f"{context.loc}: no sentence of corpus '{corpus.name}' has a word of the gender "
            "word lists, so CDA would swap nothing; use a corpus with gendered sentences"
        )
    return TrainingData(sentences=tuple(augmented))


def objective(options: CdaOptions) -> Objective:
    from audit.variants.objective import Objective

    return Objective(kind="lm")


METHOD = VariantMethod(parts=single_part, training_data=training_data, objective=objective)
