"""Self-Debias (Schick, Udupa and Schütze 2021, TACL), as bias-bench applies it to
likelihood scoring: nothing is trained and no corpus is read. The variant is its base
model plus its settings (the debiasing prefixes, lambda, epsilon), stored with the base
model's files (`audit.models.self_debias`); the scorers rescale the next-token /
masked-token distribution with them at scoring time (`audit.scoring.self_debias`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from audit.variants.methods.base import MethodContext, VariantMethod, VariantPart, single_part
from audit.variants.methods.options import SelfDebiasOptions

if TYPE_CHECKING:
    from audit.models.self_debias import SelfDebiasSettings
    from audit.variants.corpus import Corpus
    from audit.variants.objective import Objective, TrainingData


def training_data(
    corpus: Corpus, options: SelfDebiasOptions, part: VariantPart, context: MethodContext
) -> TrainingData:
    """Nothing: Self-Debias reads no text before scoring."""
    from audit.variants.objective import TrainingData

    return TrainingData()


def objective(options: SelfDebiasOptions) -> Objective:
    from audit.variants.objective import Objective

    return Objective(kind="self_debias")


def scoring_settings(options: SelfDebiasOptions) -> SelfDebiasSettings:
    """The settings stored with the variant: the prefixes, lambda and alpha's floor."""
    from audit.models.self_debias import SelfDebiasSettings

    return SelfDebiasSettings(
        prefixes=options.prefix_texts(), decay=options.decay, epsilon=options.epsilon()
    )


METHOD = VariantMethod(
    parts=single_part,
    training_data=training_data,
    objective=objective,
    scoring_settings=scoring_settings,
)
