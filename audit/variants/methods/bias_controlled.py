"""Bias-controlled fine-tuning (Kaneko et al. 2023): D_f and D_m mined from the corpus,
both downsampled to N; one model per ratio r on r*N male + (1-r)*N female sentences."""

from __future__ import annotations

from typing import TYPE_CHECKING

from audit.errors import AuditUserError
from audit.variants.methods.base import MethodContext, VariantMethod, VariantPart
from audit.variants.methods.options import BiasControlledOptions

if TYPE_CHECKING:
    from audit.variants.corpus import Corpus
    from audit.variants.objective import Objective, TrainingData


def ratio_suffix(r: float) -> str:
    """`-r0.3`: the suffix of the ratio model's id (`{r:g}`, so 0.25 stays 0.25)."""
    return f"-r{r:g}"


def parts(options: BiasControlledOptions) -> list[VariantPart]:
    return [VariantPart(suffix=ratio_suffix(r), ratio=r) for r in options.ratios]


def training_data(
    corpus: Corpus, options: BiasControlledOptions, part: VariantPart, context: MethodContext
) -> TrainingData:
    from audit.variants.mining import mine, ratio_mix
    from audit.variants.objective import TrainingData

    assert part.ratio is not None
    mined = mine(corpus.sentences, context.word_lists(options.word_lists))
    available = min(len(mined.female), len(mined.male))
    n = options.n if options.n is not None else available
    if n > available or n == 0:
        raise AuditUserError(
            f"{context.loc}.options.n: {n} sentences per ratio model asked, but corpus "
            f"'{corpus.name}' has {len(mined.female)} female-only and {len(mined.male)} "
            f"male-only sentences (of {len(corpus.sentences)}); N can be at most {available}"
            + ("" if available else ": use a corpus with gendered sentences")
        )
    return TrainingData(
        sentences=tuple(ratio_mix(mined.male, mined.female, n, part.ratio, context.seed))
    )


def objective(options: BiasControlledOptions) -> Objective:
    from audit.variants.objective import Objective

    return Objective(kind="lm")


METHOD = VariantMethod(parts=parts, training_data=training_data, objective=objective)
