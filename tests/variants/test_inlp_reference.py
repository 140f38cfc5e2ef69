"""INLP's `compat: reference` (bias-bench's code: scikit-learn's LinearSVC and
train_test_split) against scikit-learn itself and against bias-bench's loop written out
here, its cache key and its rehearsal. Small synthetic vectors: no model is loaded. The
tests that need no scikit-learn are in test_inlp_compat.py."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.linalg
import torch

from audit.variants.labelled_data import labelled_data
from audit.variants.methods.options import InlpOptions
from tests.variants.inlp_vectors import (
    BINARY_SIZES,
    GENDER_SIZES,
    planted,
    religion_context,
    run_fit,
    tiny_corpus,
)

pytest.importorskip("sklearn", reason="scikit-learn (the `reference` extra) is needed")
from sklearn.model_selection import train_test_split
from sklearn.svm import LinearSVC

from audit.variants.inlp_reference import fit_classifier, reference_split

# --- the reference classifier and split are scikit-learn's, with bias-bench's arguments


def _bias_benchs_svc() -> LinearSVC:
    """bias-bench's `classifier_parameters` (context_nullspace_projection.py), verbatim."""
    return LinearSVC(fit_intercept=False, class_weight=None, dual=False, random_state=0)


@pytest.mark.parametrize("classes", [2, 3])
def test_reference_classifier_is_bias_benchs_linearsvc_bit_for_bit(classes: int) -> None:
    rng = np.random.default_rng(classes)
    x = rng.normal(size=(120, 10)).astype(np.float32)
    y = rng.integers(0, classes, size=120) - (1 if classes == 3 else 0)
    x[:, 0] += y
    expected = _bias_benchs_svc().fit(x, y).coef_
    weights = fit_classifier(x, y).weights
    assert weights.shape == (1 if classes == 2 else 3, 10)
    assert np.array_equal(weights, expected.reshape(weights.shape))


def test_reference_classifier_stops_where_linearsvc_stops_not_at_the_minimum() -> None:
    """The point of `compat: reference`: liblinear stops at its tolerance, so its weights
    differ from the exact minimiser's (the default), though both minimise one objective."""
    from audit.variants.projection import linear_svm

    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, 16)).astype(np.float32)
    y = (rng.random(300) < 0.4).astype(np.int64)
    x[y == 1, 0] += 1.0
    reference = fit_classifier(x, y).weights
    exact = linear_svm(torch.from_numpy(x), torch.from_numpy(y)).numpy()
    gap = np.abs(reference - exact).max()
    assert 1e-9 < gap < 1e-3


def test_reference_split_is_bias_benchs_two_train_test_splits() -> None:
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=(97, 4)), rng.integers(0, 2, size=97)
    x_train_dev, x_test, y_train_dev, _ = train_test_split(x, y, test_size=0.3, random_state=0)
    x_train, x_dev, _, _ = train_test_split(x_train_dev, y_train_dev, test_size=0.3, random_state=0)
    train, dev, test = reference_split(97)
    assert np.array_equal(x[train], x_train) and np.array_equal(x[dev], x_dev)
    assert np.array_equal(x[test], x_test)
    assert (len(train), len(dev), len(test)) == (46, 21, 30)  # ceil(0.3 n) held out


# --- bias-bench's loop, written out from its code, against `fit` with compat: reference


def _rowspace(w: np.ndarray) -> np.ndarray:
    basis = np.zeros_like(w.T) if np.allclose(w, 0) else scipy.linalg.orth(w.T)
    return basis.dot(basis.T)


def _intersection(rowspaces: list[np.ndarray], dim: int) -> np.ndarray:
    return np.eye(dim) - _rowspace(np.sum(rowspaces, axis=0))


def bias_bench_inlp(
    features: list[np.ndarray], labels: list[int], n_classifiers: int
) -> tuple[torch.Tensor, list[float]]:
    """bias-bench's `_split_*_dataset`, then `get_debiasing_projection` with the arguments
    `_apply_nullspace_projection` passes (autoregressive, min_accuracy 0, dropout 0, not
    by class), then `torch.tensor(P, dtype=torch.float32)`."""
    np.random.seed(0)
    x = np.concatenate(features, axis=0)
    y = np.concatenate(
        [np.full(len(f), label, dtype=int) for f, label in zip(features, labels, strict=True)]
    )
    x_train_dev, _, y_train_dev, _ = train_test_split(x, y, test_size=0.3, random_state=0)
    x_train, x_dev, y_train, y_dev = train_test_split(
        x_train_dev, y_train_dev, test_size=0.3, random_state=0
    )
    dim = x.shape[1]
    x_train_cp, x_dev_cp = x_train.copy(), x_dev.copy()
    rowspaces: list[np.ndarray] = []
    accuracies: list[float] = []
    dropout_rate = 0
    for _ in range(n_classifiers):
        model = _bias_benchs_svc()
        dropout_scale = 1.0 / (1 - dropout_rate + 1e-6)
        dropout_mask = (np.random.rand(*x_train.shape) < (1 - dropout_rate)).astype(
            float
        ) * dropout_scale
        model.fit(x_train_cp * dropout_mask, y_train)
        accuracy = model.score(x_dev_cp, y_dev)
        if accuracy < 0:  # min_accuracy
            continue
        w = model.coef_
        if len(w.shape) == 1:
            w = np.expand_dims(w, 0)
        rowspaces.append(_rowspace(w))
        accuracies.append(float(accuracy))
        p = _intersection(rowspaces, dim)
        x_train_cp = (p.dot(x_train.T)).T
        x_dev_cp = (p.dot(x_dev.T)).T
    p = _intersection(rowspaces, dim)
    return torch.tensor(p, dtype=torch.float32), accuracies


@pytest.mark.parametrize(
    ("bias_type", "sizes", "labels"),
    [("gender", GENDER_SIZES, [1, 0, -1]), ("religion", BINARY_SIZES, [1, 0])],
)
def test_reference_projection_is_bias_benchs_bit_for_bit(
    bias_type: str, sizes: dict[str, int], labels: list[int]
) -> None:
    dim, iterations = 12, 3
    expected, accuracies = bias_bench_inlp(list(planted(sizes, dim).values()), labels, iterations)
    result = run_fit(bias_type, sizes, iterations=iterations, dim=dim, compat="reference")
    assert torch.equal(result.matrix, expected)
    assert result.facts["dev_accuracy"] == accuracies
    assert result.facts["rank_removed"] == iterations * (3 if bias_type == "gender" else 1)
    assert result.facts["classifier"].startswith("LinearSVC, scikit-learn ")
    assert result.facts["classifiers_not_converged"] == 0


def test_the_default_is_not_the_reference() -> None:
    formula = run_fit("gender", GENDER_SIZES, iterations=2, dim=12)
    reference = run_fit("gender", GENDER_SIZES, iterations=2, dim=12, compat="reference")
    assert not torch.allclose(formula.matrix, reference.matrix, atol=1e-3)


def test_cache_key_changes_with_compat(tmp_path: Path) -> None:
    from audit.variants.jobs import BaseModelFacts, data_sha256, plan_variants
    from audit.variants.settings import VariantSpec

    (tmp_path / "corpus.txt").write_text("\n".join(tiny_corpus().sentences) + "\n")
    religion_context(tmp_path)  # writes words.json
    base = {"method": "inlp", "base": "m", "corpus": {"path": "corpus.txt"}}
    options = {"bias_type": "religion", "attribute_words": "words.json"}
    variants = [
        VariantSpec.model_validate({**base, "id": "a", "options": options}),
        VariantSpec.model_validate(
            {**base, "id": "b", "options": {**options, "compat": "formula"}}
        ),
        VariantSpec.model_validate(
            {**base, "id": "c", "options": {**options, "compat": "reference"}}
        ),
    ]
    plan = plan_variants(
        variants,
        bases={"m": BaseModelFacts(fingerprint="f" * 64, model_type="masked")},
        seed=0,
        data_dir=None,
        base_dir=tmp_path,
        cache_dir=tmp_path / "cache",
    )
    default, formula, reference = (job.key for job in plan.jobs)
    assert default == formula  # compat: formula is the default, written or not
    assert reference != formula
    # the same sentences (no repeated attribute word here): the options alone differ
    assert data_sha256(plan.jobs[1].data) == data_sha256(plan.jobs[2].data)
    assert plan.jobs[2].options.compat == "reference"


def test_the_plan_rehearses_the_reference_with_its_own_classifier() -> None:
    """`audit plan` times one round on random vectors of the data's shape, with the
    classifier the fit will use."""
    from audit.variants.inlp_reference import ReferenceInlp
    from audit.variants.methods.inlp import rehearsal
    from audit.variants.projection import InlpResult

    data = labelled_data({"bias": ("a",) * 30, "neutral": ("b",) * 50})
    for compat, kind in (("formula", InlpResult), ("reference", ReferenceInlp)):
        plan = rehearsal(InlpOptions(bias_type="religion", compat=compat), data)
        done = plan.run(8)
        assert isinstance(done, kind) and done.projection.shape == (8, 8)
        assert plan.count == 82 and plan.unit == "INLP iteration"


def test_the_plan_times_the_formula_classifiers_at_real_data_iterations(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Real hidden states take INLP's L-BFGS fits through many more iterations than random
    vectors (benchmarks/results/inlp_iterations_*_full.json): the rehearsal runs each of
    its fits for REHEARSED_FIT_ITERATIONS, the fit itself stops at convergence."""
    from audit.variants.methods.inlp import REHEARSED_FIT_ITERATIONS, rehearsal
    from audit.variants.projection import linear_svm

    fits: list[int] = []
    step = torch.optim.LBFGS.step

    def counted(self: torch.optim.LBFGS, closure: object) -> object:
        out = step(self, closure)  # type: ignore[arg-type]
        fits.append(int(self.state[self._params[0]]["n_iter"]))
        return out

    monkeypatch.setattr(torch.optim.LBFGS, "step", counted)
    data = labelled_data({"bias": ("a",) * 300, "neutral": ("b",) * 500})
    rehearsal(InlpOptions(bias_type="religion"), data).run(8)
    assert fits == [REHEARSED_FIT_ITERATIONS]
    fits.clear()
    x = torch.randn(800, 8, generator=torch.Generator().manual_seed(0))
    linear_svm(x, (x[:, 0] > 0).long())
    assert len(fits) == 1 and fits[0] < REHEARSED_FIT_ITERATIONS
