"""The arithmetic of the post-hoc projections (torch only, no model): SentenceDebias's
bias subspace (Liang et al. 2020) and INLP's iterative nullspace projection (Ravfogel et
al. 2020), both as bias-bench computes them (McGill-NLP/bias-bench,
`bias_bench/debias/sentence_debias.py`, `bias_bench/debias/inlp/`). Each returns the
d x d matrix P that `audit.models.projection` applies to the last hidden states.

INLP's classifier (the default, `compat: formula`): bias-bench trains scikit-learn's
`LinearSVC` (squared hinge, L2, C = 1, no intercept, one-vs-rest); `linear_svm` minimises
the same objective exactly, with full-batch L-BFGS in torch to a gradient of 1e-9, where
liblinear stops at its tolerance of 1e-4. The two weights differ by about 1e-6 on one
fit, and the difference compounds over the rounds of INLP, each trained on the data
projected by the ones before: the removed subspaces drift apart (measured in
docs/training.md). `compat: reference` runs bias-bench's own classifier, split and
arithmetic instead (`audit.variants.inlp_reference`, needs scikit-learn).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


def nullspace_of(directions: torch.Tensor, dim: int) -> torch.Tensor:
    """I - the orthogonal projection onto the row space of `directions` (k x d): the
    projection that removes every component along them."""
    eye = torch.eye(dim, dtype=torch.float64)
    if directions.numel() == 0 or torch.allclose(directions, torch.zeros_like(directions)):
        return eye
    basis = _orth(directions.double().T)
    return eye - basis @ basis.T


def _orth(matrix: torch.Tensor) -> torch.Tensor:
    """An orthonormal basis of the column space of `matrix` (scipy.linalg.orth's rule)."""
    u, s, _ = torch.linalg.svd(matrix, full_matrices=False)
    tolerance = max(matrix.shape) * torch.finfo(s.dtype).eps * (s.max() if s.numel() else 0)
    return u[:, s > tolerance]


def sentence_debias_projection(groups: torch.Tensor, components: int) -> torch.Tensor:
    """SentenceDebias: `groups[j]` holds the (n x d) sentence vectors of counterfactual
    set j (row i: the sentence with the i-th attribute word). Each vector is normalised
    to unit length, the set's mean subtracted; the bias subspace is the first
    `components` principal components of all centred vectors; P removes it."""
    if groups.ndim != 3 or groups.shape[0] == 0:
        raise ValueError("SentenceDebias needs a [sets, n, d] tensor of at least one set")
    stacked = groups.double()
    stacked = stacked / stacked.norm(dim=-1, keepdim=True)
    centred = (stacked - stacked.mean(dim=1, keepdim=True)).reshape(-1, stacked.shape[-1])
    directions = principal_components(centred, components)
    return nullspace_of(directions, stacked.shape[-1]).float()


def principal_components(rows: torch.Tensor, k: int) -> torch.Tensor:
    """The first `k` principal components (k x d, unit rows) of `rows`, as PCA finds them
    (the data centred on its mean first)."""
    centred = rows - rows.mean(dim=0, keepdim=True)
    _, _, vh = torch.linalg.svd(centred, full_matrices=False)
    return vh[:k]


def linear_svm(
    x: torch.Tensor,
    y: torch.Tensor,
    *,
    c: float = 1.0,
    max_iter: int = 200,
    exactly: int | None = None,
) -> torch.Tensor:
    """One-vs-rest linear SVM without intercept, LinearSVC's primal objective
    0.5 ||w||^2 + C sum max(0, 1 - t w.x)^2 (t = +-1) per class; returns the weights
    (1 x d for two classes, one row per class otherwise). `exactly` runs every fit for that
    many L-BFGS iterations, converged or not: only for timing (`audit plan`), as random
    vectors converge in a few iterations where real hidden states take many
    (benchmarks/results/inlp_iterations_*.json)."""
    x = x.double()
    classes = torch.unique(y)
    targets = classes[1:] if len(classes) == 2 else classes
    rows = [
        _fit_one(x, torch.where(y == label, 1.0, -1.0).double(), c, max_iter, exactly)
        for label in targets
    ]
    return torch.stack(rows)


def _fit_one(
    x: torch.Tensor, t: torch.Tensor, c: float, max_iter: int, exactly: int | None
) -> torch.Tensor:
    """One class against the rest (targets t = +-1) by full-batch L-BFGS (`exactly`:
    negative tolerances, so that no convergence test stops it before that many)."""
    w = torch.zeros(x.shape[1], dtype=torch.float64, requires_grad=True)
    optimiser = torch.optim.LBFGS(
        [w],
        max_iter=max_iter if exactly is None else exactly,
        tolerance_grad=1e-9 if exactly is None else -1.0,
        tolerance_change=1e-12 if exactly is None else -1.0,
        history_size=20,
        line_search_fn="strong_wolfe",
    )

    def loss() -> torch.Tensor:
        optimiser.zero_grad()
        margin = torch.clamp(1 - t * (x @ w), min=0)
        value = 0.5 * w.dot(w) + c * margin.pow(2).sum()
        value.backward()
        return value

    with torch.enable_grad():
        optimiser.step(loss)
    return w.detach()


def accuracy(
    weights: torch.Tensor, x: torch.Tensor, y: torch.Tensor, classes: torch.Tensor | None = None
) -> float:
    """Accuracy of the one-vs-rest classifier `weights` on (x, y). `classes` are the labels
    it was trained on (its rows' order; default: those of `y`, which must then hold every
    one): an evaluation set that lacks a class is still read with the classifier's own."""
    classes = torch.unique(y) if classes is None else classes
    scores = x.double() @ weights.T
    if len(classes) == 2 and weights.shape[0] == 1:
        predicted = torch.where(scores[:, 0] > 0, classes[1], classes[0])
    else:
        predicted = classes[scores.argmax(dim=1)]
    return float((predicted == y).double().mean())


@dataclass(frozen=True)
class InlpResult:
    """INLP's projection and, per iteration, the dev accuracy of its classifier."""

    projection: torch.Tensor
    accuracies: tuple[float, ...]


def inlp_projection(
    x_train: torch.Tensor,
    y_train: torch.Tensor,
    x_dev: torch.Tensor,
    y_dev: torch.Tensor,
    *,
    iterations: int,
    fit_iterations: int | None = None,
) -> InlpResult:
    """INLP as bias-bench runs it (autoregressive, min_accuracy 0, no dropout): train a
    linear classifier of the attribute labels, add its row space to the removed
    directions, retrain on the data projected onto the nullspace of all so far; P is the
    projection onto the intersection of the nullspaces (Ben-Israel's formula).
    `fit_iterations`: each classifier runs exactly that many L-BFGS iterations (timing
    only, `linear_svm`'s `exactly`)."""
    dim = x_train.shape[1]
    x_train, x_dev = x_train.double(), x_dev.double()
    rowspaces: list[torch.Tensor] = []
    accuracies: list[float] = []
    projection = torch.eye(dim, dtype=torch.float64)
    for _ in range(iterations):
        train, dev = x_train @ projection.T, x_dev @ projection.T
        weights = linear_svm(train, y_train, exactly=fit_iterations)
        accuracies.append(accuracy(weights, dev, y_dev, torch.unique(y_train)))
        rowspaces.append(torch.eye(dim, dtype=torch.float64) - nullspace_of(weights, dim))
        projection = nullspace_of(_orth(torch.stack(rowspaces).sum(0)).T, dim)
    return InlpResult(projection=projection.float(), accuracies=tuple(accuracies))
