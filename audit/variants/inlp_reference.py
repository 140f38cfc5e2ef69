"""INLP as bias-bench's code computes it (`compat: reference`): scikit-learn's
`LinearSVC` and `train_test_split` with bias-bench's arguments, and the arithmetic of
its loop in numpy / scipy, step for step (McGill-NLP/bias-bench,
`bias_bench/debias/inlp/context_nullspace_projection.py` and `debias.py`, Ravfogel's
`get_debiasing_projection`). scikit-learn is an optional dependency (the `reference`
extra); this module is imported only when a reference projection is computed.

What the default (`audit.variants.projection`, L-BFGS in torch) does differently, and
this reproduces:

- the classifier: liblinear's primal trust-region Newton solver, stopped at tolerance
  1e-4 (at most 1000 iterations), instead of an L-BFGS run to a gradient of 1e-9;
- the split: `train_test_split(test_size=0.3, random_state=0)` twice (test, then dev),
  whatever the audit's seed, instead of a permutation seeded by it;
- the training rows of every round are multiplied by bias-bench's dropout scale
  1 / (1 - 0 + 1e-6) (its `dropout_rate` is 0, the scale is applied all the same);
- each round's rows are projected as `(P.dot(X.T)).T` from the unprojected rows, and P
  is `I - orth(sum of the row-space projections)` with scipy's `orth`, in float64; the
  matrix is handed on in float32, as bias-bench's `torch.tensor(P, dtype=torch.float32)`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

if TYPE_CHECKING:
    from sklearn.svm import LinearSVC

#: bias-bench's `classifier_parameters` (`_apply_nullspace_projection`) ...
BIAS_BENCH_SVC: dict[str, Any] = {
    "fit_intercept": False,
    "class_weight": None,
    "dual": False,
    "random_state": 0,
}
#: ... and the defaults of the scikit-learn it pins (1.0.2) that it relies on, spelled
#: out so that a later scikit-learn's defaults cannot change them.
SKLEARN_1_0_DEFAULTS: dict[str, Any] = {
    "penalty": "l2",
    "loss": "squared_hinge",
    "C": 1.0,
    "tol": 1e-4,
    "max_iter": 1000,
}
#: bias-bench's two `train_test_split` calls: the share held out, and the random state.
TEST_SIZE = 0.3
SPLIT_RANDOM_STATE = 0
#: bias-bench's `dropout_scale` with `dropout_rate` 0: 1 / (1 - 0 + 1e-6), applied to the
#: training rows of every round.
DROPOUT_SCALE = 1.0 / (1 - 0 + 1e-6)


def reference_svc() -> LinearSVC:
    """A fresh classifier as bias-bench builds one."""
    from sklearn.svm import LinearSVC

    return LinearSVC(**SKLEARN_1_0_DEFAULTS, **BIAS_BENCH_SVC)


@dataclass(frozen=True)
class Fitted:
    """A fitted reference classifier: its weights (one row per class, one row for two
    classes, as bias-bench's `get_weights`) and whether liblinear stopped at its
    iteration limit instead of its tolerance."""

    weights: np.ndarray
    converged: bool
    model: Any


def fit_classifier(x: np.ndarray, y: np.ndarray) -> Fitted:
    """`LinearSVC(...).fit(x, y)`, liblinear's ConvergenceWarning recorded, not printed."""
    from sklearn.exceptions import ConvergenceWarning

    model = reference_svc()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(x, y)
    weights = model.coef_
    if weights.ndim == 1:
        weights = np.expand_dims(weights, 0)
    converged = int(np.max(model.n_iter_)) < SKLEARN_1_0_DEFAULTS["max_iter"]
    return Fitted(weights=weights, converged=converged, model=model)


def reference_split(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Train, dev and test positions of n rows, as bias-bench's `_split_*_dataset` draws
    them: 30 % test, then 30 % of the rest dev, both with `random_state=0`."""
    from sklearn.model_selection import train_test_split

    rows = np.arange(n)
    train_dev, test = train_test_split(rows, test_size=TEST_SIZE, random_state=SPLIT_RANDOM_STATE)
    train, dev = train_test_split(train_dev, test_size=TEST_SIZE, random_state=SPLIT_RANDOM_STATE)
    return train, dev, test


def rowspace_projection(weights: np.ndarray) -> np.ndarray:
    """The orthogonal projection onto the row space of `weights` (bias-bench's
    `get_rowspace_projection`)."""
    from scipy.linalg import orth

    basis = np.zeros_like(weights.T) if np.allclose(weights, 0) else orth(weights.T)
    return basis.dot(basis.T)


def intersection_of_nullspaces(rowspaces: list[np.ndarray], dim: int) -> np.ndarray:
    """The projection onto the intersection of the row spaces' nullspaces, by Ben-Israel's
    formula (bias-bench's `get_projection_to_intersection_of_nullspaces`)."""
    return np.eye(dim) - rowspace_projection(np.sum(rowspaces, axis=0))


@dataclass(frozen=True)
class ReferenceInlp:
    """The reference projection (float32, as bias-bench hands it on), each round's dev
    accuracy, and how many of its classifiers stopped at liblinear's iteration limit."""

    projection: torch.Tensor
    accuracies: tuple[float, ...]
    not_converged: int


def reference_inlp(
    x_train: np.ndarray,
    y_train: np.ndarray,
    x_dev: np.ndarray,
    y_dev: np.ndarray,
    *,
    iterations: int,
) -> ReferenceInlp:
    """bias-bench's `get_debiasing_projection` with its arguments (autoregressive,
    min_accuracy 0: no round is skipped, dropout rate 0, not by class): each round a
    fresh classifier on the training rows projected so far (times the dropout scale),
    its dev accuracy, its row space added, and the rows projected anew from the
    unprojected ones by the projection onto the intersection of the nullspaces."""
    dim = x_train.shape[1]
    train, dev = x_train.copy(), x_dev.copy()
    rowspaces: list[np.ndarray] = []
    accuracies: list[float] = []
    not_converged = 0
    for _ in range(iterations):
        fitted = fit_classifier(train.astype(np.float64) * DROPOUT_SCALE, y_train)
        accuracies.append(float(fitted.model.score(dev, y_dev)))
        not_converged += not fitted.converged
        rowspaces.append(rowspace_projection(fitted.weights))
        p = intersection_of_nullspaces(rowspaces, dim)
        train = (p.dot(x_train.T)).T
        dev = (p.dot(x_dev.T)).T
    p = intersection_of_nullspaces(rowspaces, dim)
    return ReferenceInlp(
        projection=torch.tensor(p, dtype=torch.float32),
        accuracies=tuple(accuracies),
        not_converged=not_converged,
    )


def held_out_accuracy(
    x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray, y_test: np.ndarray
) -> float:
    """The test accuracy of a fresh reference classifier trained on (x_train, y_train)."""
    return float(fit_classifier(x_train, y_train).model.score(x_test, y_test))


def sklearn_version() -> str:
    import sklearn

    return str(sklearn.__version__)
