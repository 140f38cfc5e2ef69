"""INLP's `compat: reference` (bias-bench's code: scikit-learn's LinearSVC and
train_test_split) against scikit-learn itself and against bias-bench's loop written out
here; the default (`compat: formula`) pinned to the numbers it gave before `compat`
existed; the option in the spec, in the cache key and without scikit-learn installed.
All on small synthetic vectors: no model is loaded."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pytest
import scipy.linalg
import torch

from audit.errors import AuditUserError
from audit.scoring.sentence_vectors import SentenceVectors
from audit.variants.corpus import Corpus
from audit.variants.methods.base import MethodContext, VariantPart
from audit.variants.methods.inlp import fit, training_data
from audit.variants.methods.options import InlpOptions
from audit.variants.objective import TrainingData
from audit.variants.posthoc import ProjectionFit, ProjectionSetup
from audit.variants.posthoc_data import inlp_classes

if TYPE_CHECKING:
    from audit.models.loaded import LoadedModel

sklearn = pytest.importorskip("sklearn", reason="scikit-learn (the `reference` extra) is needed")
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.svm import LinearSVC  # noqa: E402

from audit.variants.inlp_reference import fit_classifier, reference_split  # noqa: E402

GENDER_SIZES = {"male": 50, "female": 40, "neutral": 60}
BINARY_SIZES = {"bias": 45, "neutral": 70}


def planted(sizes: dict[str, int], dim: int, seed: int = 1) -> dict[str, np.ndarray]:
    """float32 vectors per class, class k shifted by 1.5 along axis k."""
    rng = np.random.default_rng(seed)
    out = {}
    for k, (name, n) in enumerate(sizes.items()):
        x = rng.normal(size=(n, dim)).astype(np.float32)
        x[:, k] += 1.5
        out[name] = x
    return out


@dataclass(frozen=True)
class VectorSetup(ProjectionSetup):
    """A projection setup whose sentence vectors are given (no model): the sentences of
    class c are 'c 0', 'c 1', ..., and their vectors come back as the encoder returns
    them (float64 rows holding float32 values)."""

    rows: dict[str, np.ndarray] = field(default_factory=dict)

    def vectors(self, sentences: Sequence[str]) -> SentenceVectors:
        values = self.rows[sentences[0].split()[0]].astype(np.float64)
        return SentenceVectors(values, tuple(range(len(values))), 3 * len(values))


def run_fit(
    bias_type: str, sizes: dict[str, int], *, iterations: int, dim: int, **options: Any
) -> ProjectionFit:
    data = TrainingData(
        labelled={name: tuple(f"{name} {i}" for i in range(n)) for name, n in sizes.items()}
    )
    setup = VectorSetup(
        loaded=cast("LoadedModel", None),
        data=data,
        options=InlpOptions(bias_type=bias_type, iterations=iterations, **options),
        seed=5,
        batch_size=8,
        max_length=16,
        loc="variants[0]",
        rows=planted(sizes, dim),
    )
    return fit(setup)


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


# --- the default is what it was before compat existed


def test_default_projection_is_pinned() -> None:
    """Numbers of the default computed by the code before `compat` was added (same
    vectors, seed 5): adding the reference changed none of them."""
    gender = run_fit("gender", GENDER_SIZES, iterations=2, dim=12)
    assert gender.facts == {
        "classes": {"male": 50, "female": 40, "neutral": 60},
        "iterations": 2,
        "dev_accuracy": [0.90625, 0.3125],
        "test_accuracy_before": 0.8,
        "test_accuracy_after": pytest.approx(17 / 45),
        "test_majority_rate": pytest.approx(21 / 45),
        "rank_removed": 6,
    }
    assert gender.matrix[0, :4].tolist() == pytest.approx(
        [0.112815589, 0.045879949, 0.016973741, -0.157241121], abs=1e-6
    )
    binary = run_fit("religion", BINARY_SIZES, iterations=2, dim=12)
    assert binary.facts["dev_accuracy"] == pytest.approx([19 / 24, 20 / 24])
    assert binary.facts["test_accuracy_after"] == pytest.approx(14 / 34)
    assert binary.matrix[0, :4].tolist() == pytest.approx(
        [0.521725535, 0.436224461, 0.092523016, -0.049039576], abs=1e-6
    )


# --- the data: bias-bench's cut of a class sentence


def test_reference_cut_starts_at_the_first_occurrence_of_the_last_attribute_word() -> None:
    """bias-bench's `idx = tokens.index(token)`: in 'god ... the god house ...' its cut
    is drawn from position 0 (the first 'god'), the default's from 7 (the last)."""
    words = [("god", "allah"), ("church", "mosque")]
    sentence = "god is said to be in the god house of prayer for all"

    def lengths(reference: bool) -> set[int]:
        return {
            len(
                inlp_classes(
                    [sentence], words, "religion", max_sentences=5, seed=s, reference_cut=reference
                )["bias"][0].split()
            )
            for s in range(40)
        }

    assert min(lengths(False)) == 8  # always up to the second 'god' at least
    assert min(lengths(True)) < 8


# --- options: the spec, the missing package, the cache key


def _spec(tmp_path: Path, options: str) -> Path:
    path = tmp_path / "spec.yaml"
    path.write_text(
        "spec_version: 1\nname: x\nmodels:\n  - {id: m, source: {path: models/bert}}\n"
        "datasets:\n  - {name: crows_pairs, limit: 4}\nmeasures: [bias_score]\nvariants:\n"
        f"  - {{id: v, base: m, method: inlp, corpus: sts_b, options: {options}}}\n"
    )
    return path


def test_spec_accepts_compat_reference_and_names_a_wrong_value(tmp_path: Path) -> None:
    from audit.spec.loader import load_spec
    from audit.spec.problems import SpecError

    loaded = load_spec(_spec(tmp_path, "{bias_type: religion, compat: reference}"))
    assert loaded.spec.variants[0].options == {"bias_type": "religion", "compat": "reference"}
    with pytest.raises(SpecError) as error:
        load_spec(_spec(tmp_path, "{compat: bias-bench}"))
    text = str(error.value)
    assert "variants[0].options.compat" in text
    assert "formula" in text and "reference" in text


def test_validating_a_reference_spec_imports_no_scikit_learn(tmp_path: Path) -> None:
    program = (
        "import sys\nfrom pathlib import Path\nfrom audit.spec.loader import validate_spec_file\n"
        f"problems = validate_spec_file(Path({str(_spec(tmp_path, '{compat: reference}'))!r}))\n"
        "assert not [p for p in problems if p.is_error], problems\n"
        "print('sklearn' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "False"


def _corpus() -> Corpus:
    sentences = tuple(
        [f"the church of saint number {i} stood there" for i in range(6)]
        + [f"the river number {i} ran past the town" for i in range(6)]
    )
    return Corpus(name="tiny", source="test", sha256="0" * 64, sentences=sentences)


def _context(tmp_path: Path) -> MethodContext:
    (tmp_path / "words.json").write_text('{"religion": [["church", "mosque"]]}')
    return MethodContext(data_dir=None, base_dir=tmp_path, seed=0, loc="variants[2]")


def test_reference_without_scikit_learn_is_a_one_line_user_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    options = InlpOptions(bias_type="religion", attribute_words="words.json", compat="reference")
    context = _context(tmp_path)
    assert training_data(_corpus(), options, VariantPart(), context).labelled["bias"]
    monkeypatch.setitem(sys.modules, "sklearn", None)  # scikit-learn now "not installed"
    with pytest.raises(AuditUserError) as error:
        training_data(_corpus(), options, VariantPart(), context)
    message = str(error.value)
    assert message.startswith("variants[2].options.compat: 'reference'") and "\n" not in message
    assert "pip install 'bias-audit[reference]'" in message
    # the default needs no scikit-learn
    formula = InlpOptions(bias_type="religion", attribute_words="words.json")
    assert training_data(_corpus(), formula, VariantPart(), context).labelled["bias"]


def test_cache_key_changes_with_compat(tmp_path: Path) -> None:
    from audit.variants.jobs import BaseModelFacts, data_sha256, plan_variants
    from audit.variants.settings import VariantSpec

    (tmp_path / "corpus.txt").write_text("\n".join(_corpus().sentences) + "\n")
    _context(tmp_path)  # writes words.json
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
