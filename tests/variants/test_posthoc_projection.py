"""INLP and SentenceDebias: the projections on hand-made vectors, the data they are
computed from, and the hook that applies them to a model's last hidden states."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from audit.errors import AuditUserError
from audit.models.projection import attach_projection
from audit.variants.posthoc_data import counterfactual_sets, inlp_classes, load_attribute_words
from audit.variants.projection import (
    accuracy,
    inlp_projection,
    linear_svm,
    nullspace_of,
    sentence_debias_projection,
)
from tests.models.tiny import save_tiny_bert

GENDER = [("he", "she"), ("man", "woman")]


def test_sentence_debias_removes_the_planted_direction() -> None:
    g = torch.Generator().manual_seed(0)
    d, sets = 8, 40
    bias = torch.zeros(d)
    bias[2] = 1.0
    common = torch.randn(sets, d, generator=g) + 3
    common[:, 2] = 0.0  # orthogonal to the bias: both members of a set have the same norm
    noise = lambda: torch.randn(sets, d, generator=g) * 0.01  # noqa: E731
    groups = torch.stack([common + bias + noise(), common - bias + noise()], dim=1)
    p = sentence_debias_projection(groups, components=1).double()
    assert torch.allclose(p @ p, p, atol=1e-6) and torch.allclose(p, p.T, atol=1e-6)
    centred = groups.double() / groups.double().norm(dim=-1, keepdim=True)
    centred = (centred - centred.mean(dim=1, keepdim=True)).reshape(-1, d)
    # the differences the subspace was found from are (almost) entirely removed ...
    assert (centred @ p.T).norm() < 0.05 * centred.norm()
    # ... the planted direction is gone, and a direction orthogonal to it is kept
    assert (p @ bias.double()).norm() < 0.05
    other = torch.zeros(d, dtype=torch.float64)
    other[5] = 1.0
    assert torch.allclose(p @ other, other, atol=0.05)


def test_nullspace_of_leaves_no_component_along_the_directions() -> None:
    directions = torch.tensor([[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 2.0]])
    p = nullspace_of(directions, 4)
    x = torch.randn(10, 4, generator=torch.Generator().manual_seed(1)).double()
    removed = (x @ p.T) @ directions.double().T
    assert torch.allclose(removed, torch.zeros(10, 2, dtype=torch.float64), atol=1e-10)
    assert torch.equal(nullspace_of(torch.zeros(1, 4), 4), torch.eye(4, dtype=torch.float64))


def _separable(n: int, d: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    y = torch.arange(n) % 2
    x = torch.randn(n, d, generator=g)
    x[:, 0] += torch.where(y == 1, 3.0, -3.0)  # separable along two directions
    x[:, 1] += torch.where(y == 1, 2.0, -2.0)
    return x, y


def test_inlp_leaves_a_fresh_classifier_at_chance() -> None:
    x, y = _separable(400, 12, seed=2)
    train, test = slice(0, 280), slice(280, 400)
    before = linear_svm(x[train], y[train])
    assert accuracy(before, x[test], y[test]) > 0.95
    result = inlp_projection(x[train], y[train], x[test], y[test], iterations=4)
    assert result.accuracies[0] > 0.95
    projected = x.double() @ result.projection.double().T
    fresh = linear_svm(projected[train], y[train])
    # chance on a balanced set is 0.5; 120 test rows give a standard error of ~0.046
    assert accuracy(fresh, projected[test], y[test]) < 0.62
    assert round(float(12 - result.projection.trace())) == 4  # one direction per iteration


def test_counterfactual_sets_swap_whole_lowercase_words() -> None:
    sets = counterfactual_sets(["He is a Doctor", "the woman left", "he, too"], GENDER, None)
    # "he," is not the word "he": bias-bench splits on spaces
    assert sets == [("he is a doctor", "she is a doctor"), ("the man left", "the woman left")]
    assert counterfactual_sets(["he is he", "she sat"], GENDER, max_sets=1) == [
        ("he is he", "she is she")
    ]


def test_inlp_classes_label_one_class_sentences_and_neutral_ones() -> None:
    sentences = [
        "he went to the shop today",
        "she went to the shop today",
        "the weather was fine all day",
        "he and she went out together",  # both classes: left out
        "he left",  # too short
    ]
    classes = inlp_classes(sentences, GENDER, "gender", max_sentences=10, seed=0)
    assert set(classes) == {"male", "female", "neutral"}
    assert len(classes["male"]) == len(classes["female"]) == len(classes["neutral"]) == 1
    assert classes["male"][0].startswith("he") and classes["female"][0].startswith("she")
    assert "weather" in classes["neutral"][0] or classes["neutral"][0] == "the weather was fine"
    binary = inlp_classes(sentences, GENDER, "race", max_sentences=10, seed=0)
    # one class of attribute words: a sentence with "he" and "she" counts
    assert set(binary) == {"bias", "neutral"} and len(binary["bias"]) == 3


def test_attribute_word_file_errors_name_the_file_and_field(tmp_path: Path) -> None:
    path = tmp_path / "words.json"
    path.write_text(json.dumps({"gender": [["he", "she"], ["man"]]}))
    with pytest.raises(AuditUserError, match=r"variants\[0\]\.options.*'gender'\[1\]"):
        load_attribute_words(path, "gender", "variants[0].options.attribute_words")
    with pytest.raises(AuditUserError, match="no list of word tuples under 'race'"):
        load_attribute_words(path, "race", "f")
    with pytest.raises(AuditUserError, match="does not exist"):
        load_attribute_words(tmp_path / "none.json", "gender", "f")


def test_shipped_attribute_words_read(shared_data: Path) -> None:
    words = load_attribute_words(shared_data / "seat" / "bias_attribute_words.json", "race", "f")
    assert all(len(w) == 3 for w in words)


def test_hook_projects_the_states_the_head_and_readers_see(tmp_path: Path) -> None:
    from transformers import AutoModelForMaskedLM

    save_tiny_bert(tmp_path / "bert")
    model = AutoModelForMaskedLM.from_pretrained(tmp_path / "bert").eval()
    d = model.config.hidden_size
    direction = torch.zeros(1, d)
    direction[0, 0] = 1.0
    p = nullspace_of(direction, d).float()
    ids = torch.tensor([[2, 5, 6, 7, 3]])
    with torch.no_grad():
        plain = model(input_ids=ids, output_hidden_states=True)
        handle = attach_projection(model, p)
        projected = model(input_ids=ids, output_hidden_states=True)
        body = model.base_model(input_ids=ids).last_hidden_state
        handle.remove()
        again = model(input_ids=ids)
    assert torch.allclose(projected.hidden_states[-1], plain.hidden_states[-1] @ p.T, atol=1e-6)
    assert torch.allclose(body[..., 0], torch.zeros_like(body[..., 0]), atol=1e-6)
    assert not torch.allclose(projected.logits, plain.logits)
    assert torch.equal(again.logits, plain.logits)


def test_accuracy_reads_predictions_with_the_classifiers_own_classes() -> None:
    # three one-vs-rest rows; the evaluation set holds classes 0 and 2 only
    weights = torch.eye(3, dtype=torch.float64)
    x = torch.tensor([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
    y = torch.tensor([0, 2, 2])
    assert accuracy(weights, x, y, torch.tensor([0, 1, 2])) == pytest.approx(2 / 3)
