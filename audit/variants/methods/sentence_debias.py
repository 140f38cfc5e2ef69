"""SentenceDebias (Liang et al. 2020), as bias-bench runs it: the bias subspace is the
first principal components of the counterfactual sets' centred, unit-length sentence
vectors; the variant's last hidden states lose their component in it. Not trained: the
projection is computed once (`audit.variants.posthoc`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from audit.errors import AuditUserError
from audit.variants.labelled_data import labelled_of
from audit.variants.methods.base import (
    MethodContext,
    Rehearsal,
    VariantPart,
    projection_method,
)
from audit.variants.methods.options import SentenceDebiasOptions

if TYPE_CHECKING:
    from audit.variants.corpus import Corpus
    from audit.variants.objective import TrainingData
    from audit.variants.posthoc import ProjectionFit, ProjectionSetup


def training_data(
    corpus: Corpus, options: SentenceDebiasOptions, part: VariantPart, context: MethodContext
) -> TrainingData:
    """Label i: the i-th sentence of every counterfactual set (rows aligned)."""
    from audit.variants.labelled_data import labelled_data
    from audit.variants.posthoc_data import attribute_words_of, counterfactual_sets

    words = attribute_words_of(options.attribute_words, options.bias_type, context)
    sets = counterfactual_sets(corpus.sentences, words, options.max_sets)
    if len(sets) < 2:
        raise AuditUserError(
            f"{context.loc}: corpus '{corpus.name}' has {len(sets)} sentence(s) with a "
            f"{options.bias_type} attribute word (lower-cased, whole words split on spaces); "
            "SentenceDebias needs at least 2 counterfactual sets: use a larger corpus"
        )
    size = len(words[0])
    return labelled_data({str(i): tuple(s[i] for s in sets) for i in range(size)})


def fit(setup: ProjectionSetup) -> ProjectionFit:
    import torch

    from audit.variants.posthoc import ProjectionFit
    from audit.variants.projection import sentence_debias_projection

    options = setup.options
    assert isinstance(options, SentenceDebiasOptions)
    labelled = labelled_of(setup.data)
    encoded = [setup.vectors(labelled[str(i)]) for i in range(len(labelled))]
    kept = sorted(set.intersection(*(set(e.kept) for e in encoded)))
    if len(kept) < 2:
        raise AuditUserError(
            f"{setup.loc}: {len(kept)} counterfactual set(s) encode in every member; "
            "SentenceDebias needs at least 2"
        )
    rows = [{index: n for n, index in enumerate(e.kept)} for e in encoded]
    values = [torch.from_numpy(e.values).float() for e in encoded]
    groups = torch.stack(
        [torch.stack([v[r[i]] for v, r in zip(values, rows, strict=True)]) for i in kept]
    )
    dim = groups.shape[-1]
    if options.components > min(dim, groups.shape[0] * groups.shape[1]):
        raise AuditUserError(
            f"{setup.loc}.options.components: {options.components} components asked for, "
            f"but the {len(kept)} sets of {dim}-dimensional vectors span fewer"
        )
    matrix = sentence_debias_projection(groups, options.components)
    return ProjectionFit(
        matrix=matrix,
        examples=len(kept),
        tokens=sum(e.tokens for e in encoded),
        facts={"counterfactual_sets": len(kept), "components": options.components},
    )


def rehearsal(options: SentenceDebiasOptions, data: TrainingData) -> Rehearsal:
    """The principal components of random vectors of the counterfactual sets' shape."""
    sets = max((len(v) for v in labelled_of(data).values()), default=0)
    size = len(labelled_of(data))

    def pca(dim: int) -> object:
        import torch

        from audit.variants.projection import sentence_debias_projection

        groups = torch.randn(sets, size, dim, generator=torch.Generator().manual_seed(0))
        return sentence_debias_projection(groups, min(options.components, dim))

    return Rehearsal(run=pca, count=1, unit="PCA")


def work(options: SentenceDebiasOptions, data: TrainingData) -> str:
    """'projection from 1,200 corpus sentences (600 counterfactual sets of 2), PCA of 1
    component, no training'."""
    sizes = {len(v) for v in labelled_of(data).values()}
    sets = max(sizes) if sizes else 0
    k = options.components
    return (
        f"projection from {data.n_examples():,} corpus sentences ({sets:,} counterfactual "
        f"sets of {len(labelled_of(data))}), PCA of {k} component{'' if k == 1 else 's'}, "
        "no training"
    )


METHOD = projection_method(
    "sentence_debias", training_data, fit=fit, work=work, rehearsal=rehearsal
)
