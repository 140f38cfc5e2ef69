"""INLP, iterative nullspace projection (Ravfogel et al. 2020), as bias-bench runs it:
linear classifiers learn the attribute class (male / female / neutral for gender; bias /
neutral for race and religion) from the base model's sentence vectors, each one's row
space is removed in turn, and the variant's last hidden states are projected onto the
intersection of the nullspaces. Not trained: the projection is computed once
(`audit.variants.posthoc`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from audit.errors import AuditUserError
from audit.variants.methods.base import (
    MethodContext,
    Rehearsal,
    VariantMethod,
    VariantPart,
    single_part,
)
from audit.variants.methods.options import InlpOptions

if TYPE_CHECKING:
    import torch

    from audit.variants.corpus import Corpus
    from audit.variants.objective import Objective, TrainingData
    from audit.variants.posthoc import ProjectionFit, ProjectionSetup

#: bias-bench's split: 30 % held out (test), then 30 % of the rest for dev.
HELD_OUT = 0.3


def training_data(
    corpus: Corpus, options: InlpOptions, part: VariantPart, context: MethodContext
) -> TrainingData:
    """The labelled sentences of each class (`audit.variants.posthoc_data.inlp_classes`)."""
    from audit.variants.objective import TrainingData
    from audit.variants.posthoc_data import MIN_WORDS, attribute_words_of, inlp_classes

    words = attribute_words_of(options.attribute_words, options.bias_type, context)
    classes = inlp_classes(
        corpus.sentences,
        words,
        options.bias_type,
        max_sentences=options.max_sentences,
        seed=context.seed,
    )
    if any(len(v) < 2 for v in classes.values()):
        counts = ", ".join(f"{name}: {n}" for name, n in classes.items())
        raise AuditUserError(
            f"{context.loc}: INLP needs at least 2 sentences of {MIN_WORDS}+ words per class "
            f"in corpus '{corpus.name}'; it has {counts} (a class sentence has attribute "
            "words of that class only, a neutral one has none); use a larger corpus"
        )
    return TrainingData(labelled=classes)


def objective(options: InlpOptions) -> Objective:
    from audit.variants.objective import Objective

    return Objective(kind="inlp")


def split(n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Train, dev and test positions of n rows: a seeded shuffle, 30 % test, then 30 % of
    the rest dev (bias-bench's two train_test_split calls)."""
    import torch

    order = torch.randperm(n, generator=torch.Generator().manual_seed(seed))
    n_test = max(1, round(n * HELD_OUT))
    rest = order[n_test:]
    n_dev = max(1, round(len(rest) * HELD_OUT))
    return rest[n_dev:], rest[:n_dev], order[:n_test]


def fit(setup: ProjectionSetup) -> ProjectionFit:
    import torch

    from audit.variants.posthoc import ProjectionFit
    from audit.variants.projection import accuracy, inlp_projection, linear_svm

    options = setup.options
    assert isinstance(options, InlpOptions)
    names = list(setup.data.labelled)
    encoded = [setup.vectors(setup.data.labelled[name]) for name in names]
    x = torch.cat([torch.from_numpy(e.values).float() for e in encoded])
    y = torch.cat([torch.full((len(e.kept),), k) for k, e in enumerate(encoded)])
    if len(y) < 6 or any(len(e.kept) == 0 for e in encoded):
        raise AuditUserError(
            f"{setup.loc}: INLP got "
            + ", ".join(f"{n}: {len(e.kept)}" for n, e in zip(names, encoded, strict=True))
            + " encoded sentences; it needs every class and at least 6 in all"
        )
    train, dev, test = split(len(y), setup.seed)
    result = inlp_projection(x[train], y[train], x[dev], y[dev], iterations=options.iterations)
    classes = torch.unique(y[train])  # the classifiers' labels, in their rows' order
    before = linear_svm(x[train], y[train])
    projected = x.double() @ result.projection.double().T
    after = linear_svm(projected[train], y[train])
    majority = float(torch.bincount(y[test]).max()) / len(test)
    return ProjectionFit(
        matrix=result.projection,
        examples=len(y),
        tokens=sum(e.tokens for e in encoded),
        facts={
            "classes": {n: len(e.kept) for n, e in zip(names, encoded, strict=True)},
            "iterations": options.iterations,
            "dev_accuracy": list(result.accuracies),
            "test_accuracy_before": accuracy(before, x[test], y[test], classes),
            "test_accuracy_after": accuracy(after, projected[test], y[test], classes),
            "test_majority_rate": majority,
            "rank_removed": round(float(x.shape[1] - result.projection.trace())),
        },
    )


def rehearsal(options: InlpOptions, data: TrainingData) -> Rehearsal:
    """One INLP iteration (a classifier per class and its nullspace) on random vectors of
    the split's shape; `fit` runs `iterations` of them, plus the two fresh classifiers
    before and after the projection."""
    sizes = [len(v) for v in data.labelled.values()]

    def one_iteration(dim: int) -> object:
        import torch

        from audit.variants.projection import inlp_projection

        train, dev, _ = split(sum(sizes), 0)
        x = torch.randn(sum(sizes), dim, generator=torch.Generator().manual_seed(0))
        y = torch.cat([torch.full((n,), k) for k, n in enumerate(sizes)])
        return inlp_projection(x[train], y[train], x[dev], y[dev], iterations=1)

    return Rehearsal(run=one_iteration, count=options.iterations + 2, unit="INLP iteration")


def work(options: InlpOptions, data: TrainingData) -> str:
    """'projection from 30,000 corpus sentences (male 10,000, ...), 80 INLP iterations,
    no training'."""
    counts = ", ".join(f"{name} {len(v):,}" for name, v in data.labelled.items())
    return (
        f"projection from {data.n_examples():,} corpus sentences ({counts}), "
        f"{options.iterations:,} INLP iteration{'' if options.iterations == 1 else 's'}, "
        "no training"
    )


METHOD = VariantMethod(
    parts=single_part,
    training_data=training_data,
    objective=objective,
    fit=fit,
    work=work,
    rehearsal=rehearsal,
)
