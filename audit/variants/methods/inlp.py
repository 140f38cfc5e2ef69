"""INLP, iterative nullspace projection (Ravfogel et al. 2020), as bias-bench runs it:
linear classifiers learn the attribute class (male / female / neutral for gender; bias /
neutral for race and religion) from the base model's sentence vectors, each one's row
space is removed in turn, and the variant's last hidden states are projected onto the
intersection of the nullspaces. Not trained: the projection is computed once
(`audit.variants.posthoc`).

`compat: formula` (default) minimises the classifiers' objective exactly
(`audit.variants.projection`) and splits the rows by the audit's seed; `compat:
reference` runs bias-bench's code (`audit.variants.inlp_reference`: scikit-learn's
LinearSVC and train_test_split, bias-bench's labels and its cut of the sentences)."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from audit.errors import AuditUserError
from audit.variants.labelled_data import labelled_of
from audit.variants.methods.base import (
    MethodContext,
    Rehearsal,
    VariantPart,
    projection_method,
)
from audit.variants.methods.options import InlpOptions

if TYPE_CHECKING:
    import numpy as np
    import torch

    from audit.variants.corpus import Corpus
    from audit.variants.objective import TrainingData
    from audit.variants.posthoc import ProjectionFit, ProjectionSetup

#: bias-bench's split: 30 % held out (test), then 30 % of the rest for dev.
HELD_OUT = 0.3
#: bias-bench's labels (`_split_gender_dataset`, `_split_binary_dataset`), used by
#: `compat: reference`: the classes' order and values decide the order of LinearSVC's rows.
REFERENCE_LABELS = {
    "gender": {"male": 1, "female": 0, "neutral": -1},
    "binary": {"bias": 1, "neutral": 0},
}
REFERENCE_EXTRA = "pip install 'bias-audit[reference]'"


def require_sklearn(loc: str) -> None:
    """A user error naming the variant and the install command when `compat: reference`
    is asked for and scikit-learn is not installed (looked up, not imported)."""
    if importlib.util.find_spec("sklearn") is None:
        raise AuditUserError(
            f"{loc}.options.compat: 'reference' runs bias-bench's scikit-learn LinearSVC, "
            f"and scikit-learn is not installed; install it with `{REFERENCE_EXTRA}`, or "
            "use compat: formula (the default)"
        )


def training_data(
    corpus: Corpus, options: InlpOptions, part: VariantPart, context: MethodContext
) -> TrainingData:
    """The labelled sentences of each class (`audit.variants.posthoc_data.inlp_classes`)."""
    from audit.variants.labelled_data import labelled_data
    from audit.variants.posthoc_data import MIN_WORDS, attribute_words_of, inlp_classes

    if options.compat == "reference":
        require_sklearn(context.loc)
    words = attribute_words_of(options.attribute_words, options.bias_type, context)
    classes = inlp_classes(
        corpus.sentences,
        words,
        options.bias_type,
        max_sentences=options.max_sentences,
        seed=context.seed,
        reference_cut=options.compat == "reference",
    )
    if any(len(v) < 2 for v in classes.values()):
        counts = ", ".join(f"{name}: {n}" for name, n in classes.items())
        raise AuditUserError(
            f"{context.loc}: INLP needs at least 2 sentences of {MIN_WORDS}+ words per class "
            f"in corpus '{corpus.name}'; it has {counts} (a class sentence has attribute "
            "words of that class only, a neutral one has none); use a larger corpus"
        )
    return labelled_data(classes)


def split(n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Train, dev and test positions of n rows: a seeded shuffle, 30 % test, then 30 % of
    the rest dev (bias-bench's two train_test_split calls)."""
    import torch

    order = torch.randperm(n, generator=torch.Generator().manual_seed(seed))
    n_test = max(1, round(n * HELD_OUT))
    rest = order[n_test:]
    n_dev = max(1, round(len(rest) * HELD_OUT))
    return rest[n_dev:], rest[:n_dev], order[:n_test]


@dataclass(frozen=True)
class _Projected:
    """What either computation gives `fit`: the matrix and the facts it adds."""

    matrix: torch.Tensor
    facts: dict[str, Any]


def fit(setup: ProjectionSetup) -> ProjectionFit:
    import numpy as np

    from audit.variants.posthoc import ProjectionFit

    options = setup.options
    assert isinstance(options, InlpOptions)
    labelled = labelled_of(setup.data)
    names = list(labelled)
    encoded = [setup.vectors(labelled[name]) for name in names]
    sizes = [len(e.kept) for e in encoded]
    if sum(sizes) < 6 or 0 in sizes:
        raise AuditUserError(
            f"{setup.loc}: INLP got "
            + ", ".join(f"{n}: {k}" for n, k in zip(names, sizes, strict=True))
            + " encoded sentences; it needs every class and at least 6 in all"
        )
    # float32, as the model gave them (bias-bench's arrays are float32 too)
    x = np.concatenate([e.values for e in encoded]).astype(np.float32)
    if options.compat == "reference":
        labels = REFERENCE_LABELS["gender" if options.bias_type == "gender" else "binary"]
        projected = _reference(x, _labels(sizes, [labels[n] for n in names]), options)
    else:
        projected = _formula(x, _labels(sizes, list(range(len(names)))), options, setup.seed)
    return ProjectionFit(
        matrix=projected.matrix,
        examples=len(x),
        tokens=sum(e.tokens for e in encoded),
        facts={
            "classes": dict(zip(names, sizes, strict=True)),
            "iterations": options.iterations,
            **projected.facts,
        },
    )


def _labels(sizes: list[int], values: list[int]) -> np.ndarray:
    """One label per row: `values[k]` for the `sizes[k]` rows of class k, in class order."""
    import numpy as np

    return np.concatenate(
        [np.full(n, v, dtype=np.int64) for n, v in zip(sizes, values, strict=True)]
    )


def _formula(x: np.ndarray, y: np.ndarray, options: InlpOptions, seed: int) -> _Projected:
    """The exact minimiser of each classifier's objective, the rows split by the seed."""
    import torch

    from audit.variants.projection import accuracy, inlp_projection, linear_svm

    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    train, dev, test = split(len(yt), seed)
    result = inlp_projection(xt[train], yt[train], xt[dev], yt[dev], iterations=options.iterations)
    classes = torch.unique(yt[train])  # the classifiers' labels, in their rows' order
    before = linear_svm(xt[train], yt[train])
    projected = xt.double() @ result.projection.double().T
    after = linear_svm(projected[train], yt[train])
    return _Projected(
        matrix=result.projection,
        facts={
            "dev_accuracy": list(result.accuracies),
            "test_accuracy_before": accuracy(before, xt[test], yt[test], classes),
            "test_accuracy_after": accuracy(after, projected[test], yt[test], classes),
            "test_majority_rate": _majority(y[test.numpy()]),
            "rank_removed": _rank_removed(result.projection),
        },
    )


def _reference(x: np.ndarray, y: np.ndarray, options: InlpOptions) -> _Projected:
    """bias-bench's code (`audit.variants.inlp_reference`) on its labels and split; the
    held-out accuracies before and after P (not in bias-bench) with its classifier too."""
    from audit.variants.inlp_reference import (
        held_out_accuracy,
        reference_inlp,
        reference_split,
        sklearn_version,
    )

    train, dev, test = reference_split(len(y))
    result = reference_inlp(x[train], y[train], x[dev], y[dev], iterations=options.iterations)
    p = result.projection.double().numpy()
    projected = (p.dot(x.T)).T
    return _Projected(
        matrix=result.projection,
        facts={
            "dev_accuracy": list(result.accuracies),
            "test_accuracy_before": held_out_accuracy(x[train], y[train], x[test], y[test]),
            "test_accuracy_after": held_out_accuracy(
                projected[train], y[train], projected[test], y[test]
            ),
            "test_majority_rate": _majority(y[test]),
            "rank_removed": _rank_removed(result.projection),
            "classifier": f"LinearSVC, scikit-learn {sklearn_version()}",
            "classifiers_not_converged": result.not_converged,
        },
    )


def _majority(labels: np.ndarray) -> float:
    """The largest class's share of `labels`: the accuracy of a classifier that learnt
    nothing."""
    import numpy as np

    return float(np.unique(labels, return_counts=True)[1].max()) / len(labels)


def _rank_removed(projection: torch.Tensor) -> int:
    """d - trace P: the number of dimensions P removes."""
    return round(float(projection.shape[0] - projection.trace()))


#: L-BFGS iterations a classifier of the formula's INLP is timed at by `audit plan`. Over
#: INLP's 80 rounds on minilm-mlm's real hidden states a fit took 80 of its at most 200
#: on average (the gender split of specs/debiasing-downstream.yaml, 3 classes) and 135
#: (religion, specs/posthoc-debiasing.yaml, 2 classes); on random vectors 3
#: (benchmarks/inlp_iterations.py; benchmarks/results/inlp_iterations_*_full.json).
REHEARSED_FIT_ITERATIONS = 100


def rehearsal(options: InlpOptions, data: TrainingData) -> Rehearsal:
    """One INLP iteration (a classifier per class and its nullspace) on random vectors of
    the split's shape, with the classifier `compat` names; `fit` runs `iterations` of
    them, plus the two fresh classifiers before and after the projection. The formula's
    classifiers run `REHEARSED_FIT_ITERATIONS` L-BFGS iterations each: on random vectors
    they would converge in 2 to 15 where real hidden states take many more (docs/plan.md)."""
    sizes = [len(v) for v in labelled_of(data).values()]

    def one_iteration(dim: int) -> object:
        import torch

        x = torch.randn(sum(sizes), dim, generator=torch.Generator().manual_seed(0))
        y = torch.cat([torch.full((n,), k) for k, n in enumerate(sizes)])
        if options.compat == "reference":
            from audit.variants.inlp_reference import reference_inlp, reference_split

            xs, ys = x.numpy(), y.numpy()
            rows, dev_rows, _ = reference_split(sum(sizes))
            return reference_inlp(xs[rows], ys[rows], xs[dev_rows], ys[dev_rows], iterations=1)
        from audit.variants.projection import inlp_projection

        train, dev, _ = split(sum(sizes), 0)
        return inlp_projection(
            x[train],
            y[train],
            x[dev],
            y[dev],
            iterations=1,
            fit_iterations=REHEARSED_FIT_ITERATIONS,
        )

    return Rehearsal(run=one_iteration, count=options.iterations + 2, unit="INLP iteration")


def work(options: InlpOptions, data: TrainingData) -> str:
    """'projection from 30,000 corpus sentences (male 10,000, ...), 80 INLP iterations,
    no training'."""
    counts = ", ".join(f"{name} {len(v):,}" for name, v in labelled_of(data).items())
    return (
        f"projection from {data.n_examples():,} corpus sentences ({counts}), "
        f"{options.iterations:,} INLP iteration{'' if options.iterations == 1 else 's'}, "
        "no training"
    )


METHOD = projection_method("inlp", training_data, fit=fit, work=work, rehearsal=rehearsal)
