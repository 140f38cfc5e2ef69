"""The classification head on tiny models: a hand-made 3-class set is learned, class
probabilities, label order and label errors, the NLI and BiasBios converters."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from audit.errors import AuditUserError
from audit.extrinsic.biasbios import Bio
from audit.extrinsic.finetune.examples import LabelledText, bios_examples, nli_examples
from audit.extrinsic.finetune.tune import finetune
from audit.extrinsic.kinds.classification import (
    class_labels,
    classification,
    evaluate_classifier,
    predict_labels,
    predict_proba,
)
from audit.extrinsic.kinds.regression import predict_similarity
from audit.extrinsic.nli_bias import NliExample
from tests.extrinsic.test_finetune import load_tiny, mean_loss, settings, tiny_dirs

__all__ = ["tiny_dirs"]  # the fixture, shared with test_finetune.py

SUBJECTS = ("The man", "The woman", "My friend", "The old man", "The young woman", "The family")
CLASSES = {
    "health": "{} worked at the hospital.",
    "home": "{} lived in a big house.",
    "faith": "{} prayed together.",
}


def three_classes() -> list[LabelledText]:
    """18 single texts, 6 per class; the class is told by the sentence's end."""
    return [
        LabelledText(text=template.format(subject), label=label)
        for subject in SUBJECTS
        for label, template in CLASSES.items()
    ]


def three_class_pairs() -> list[LabelledText]:
    """NLI-like pairs: the class is told by the second text."""
    hypotheses = {
        "entailment": "The capital of France is Paris.",
        "neutral": "My friend is Black.",
        "contradiction": "The rich family lived in a big house.",
    }
    return [
        LabelledText(text=premise, text_pair=hypothesis, label=label)
        for premise in ("The man worked as a nurse.", "She is a brilliant engineer.", "He said.")
        for label, hypothesis in hypotheses.items()
    ]


@pytest.mark.parametrize(
    ("name", "rows"),
    [("bert", three_classes()), ("llama", three_classes()), ("gpt2", three_class_pairs())],
)
def test_classifier_learns_three_classes(
    tiny_dirs: dict[str, Path], tmp_path: Path, name: str, rows: list[LabelledText]
) -> None:
    loaded = load_tiny(tiny_dirs, name)
    done = finetune(
        loaded,
        classification(),
        rows,
        rows,
        settings=settings(steps=80, checkpoint_every=40),
        work_dir=tmp_path / "work",
    )
    summary = done.summary
    assert summary.kind == "classification"
    assert summary.labels == sorted({r.label for r in rows})
    # cross-entropy starts near ln 3 = 1.10 (a new head gives about equal logits)
    assert abs(mean_loss(summary.curve[:3]) - np.log(3)) < 0.3
    assert mean_loss(summary.curve[-10:]) < 0.5
    final = summary.final
    assert final is not None and final.accuracy is not None and final.accuracy >= 0.9
    assert final.pearson is None
    probs = predict_proba(done.model, [r.inputs for r in rows])
    assert probs.shape == (len(rows), 3)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-9)
    predicted = predict_labels(done.model, [r.inputs for r in rows])
    assert predicted == [summary.labels[i] for i in probs.argmax(axis=1)]
    assert evaluate_classifier(done.model, rows) == final.accuracy


def test_labels_fix_the_output_order(tiny_dirs: dict[str, Path], tmp_path: Path) -> None:
    rows = three_classes()
    order = ("home", "faith", "health")
    done = finetune(
        load_tiny(tiny_dirs, "bert"),
        classification(order),
        rows,
        [],
        settings=settings(steps=80, checkpoint_every=80),
        work_dir=tmp_path / "w",
    )
    assert done.model.labels == order and done.summary.labels == list(order)
    probs = predict_proba(done.model, [r.text for r in rows])
    right = [order.index(r.label) for r in rows]
    assert float(np.mean(probs.argmax(axis=1) == np.array(right))) >= 0.9
    with pytest.raises(ValueError, match="regression head"):
        predict_similarity(done.model, [("a", "b")])


def test_label_errors(tiny_dirs: dict[str, Path], tmp_path: Path) -> None:
    rows = three_classes()
    loaded = load_tiny(tiny_dirs, "bert")
    with pytest.raises(AuditUserError, match=r"'nurse' are not among the classes"):
        finetune(
            loaded,
            classification(),
            rows,
            [LabelledText("A nurse.", "nurse")],
            settings=settings(),
            work_dir=tmp_path / "a",
        )
    with pytest.raises(AuditUserError, match="training label"):
        finetune(
            loaded,
            classification(("home", "faith")),
            rows,
            [],
            settings=settings(),
            work_dir=tmp_path / "b",
        )
    with pytest.raises(AuditUserError, match="at least 2"):
        class_labels([LabelledText("x", "only")], None)
    with pytest.raises(AuditUserError, match="repeated"):
        class_labels(rows, ["home", "home", "faith"])
    with pytest.raises(AuditUserError, match="no training example"):
        finetune(loaded, classification(), [], [], settings=settings(), work_dir=tmp_path / "c")


def test_converters() -> None:
    nli = nli_examples([NliExample("The nurse ate.", "The woman ate.", "neutral")])
    assert nli == [LabelledText("The nurse ate.", "neutral", "The woman ate.")]
    assert nli[0].inputs == ("The nurse ate.", "The woman ate.")
    bios = bios_examples([Bio(text="She writes code.", title="engineer", gender="female", index=0)])
    assert bios == [LabelledText("She writes code.", "engineer")]
    assert bios[0].inputs == "She writes code."
