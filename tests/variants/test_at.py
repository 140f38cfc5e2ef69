"""AT (Kaneko & Bollegala 2021) on tiny models: the debias term goes towards zero while the
regulariser keeps the attribute words' states near the original; both compat modes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch

from audit.errors import AuditUserError
from audit.training.encode import encode_sentences
from audit.variants.methods.at_loss import (
    AttributeTargetTask,
    locate,
    reference_weights,
)
from audit.variants.objective import ObjectiveSetup
from audit.variants.settings import TrainingSpec
from audit.variants.trainer import Objective, TrainingData, train_model
from tests.variants.tiny_lm import NEUTRAL, OCCUPATIONS, gendered_sentences, load

CPU = torch.device("cpu")
DATA = TrainingData(
    target_sentences=NEUTRAL[:7],
    attribute_sentences=(*gendered_sentences("he"), *gendered_sentences("she")),
    attribute_words={"male": ("he", "his", "man", "brother"), "female": ("she", "her")},
    target_words=OCCUPATIONS,
)


@pytest.fixture(scope="module")
def dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from tests.variants.tiny_lm import save_probe_bert, save_probe_llama

    root = tmp_path_factory.mktemp("tiny")
    return {"masked": save_probe_bert(root / "bert"), "causal": save_probe_llama(root / "llama")}


def _task(model: Any, tokenizer: Any, model_type: str, objective: Objective) -> Any:
    return AttributeTargetTask(
        ObjectiveSetup(
            model=model,
            tokenizer=tokenizer,
            model_type=model_type,  # type: ignore[arg-type]
            objective=objective,
            data=DATA,
            batch_size=8,
            max_length=64,
            seed=1,
            device=CPU,
        )
    )


def _measure(task: Any, model: Any) -> tuple[float, float]:
    """Eval mode, every sentence: L_debias of the targets (with the original model's
    vectors), and the relative distance of the attribute words' states from the original."""
    model.eval()
    with torch.no_grad():
        debias = float(task._debias(model, task.targets))
        batch = task._batch(task.attributes)
        now = torch.stack(task._hidden(model, batch), dim=2)
        before = torch.stack(task._hidden(task.frozen, batch), dim=2)
        pairs = [(r, p) for r, s in enumerate(task.attributes) for p in s.positions()]
        rows, cols = torch.tensor([r for r, _ in pairs]), torch.tensor([p for _, p in pairs])
        distance = (now[rows, cols] - before[rows, cols]).norm() / before[rows, cols].norm()
    return debias, float(distance)


def _train(model: Any, tokenizer: Any, model_type: str, objective: Objective, work: Path) -> Any:
    return train_model(
        model,
        tokenizer,
        model_type=model_type,  # type: ignore[arg-type]
        objective=objective,
        data=DATA,
        settings=TrainingSpec(steps=40, learning_rate=3e-3, batch_size=8, seed=1),
        work_dir=work,
        device=CPU,
    )


@pytest.mark.parametrize("model_type", ["masked", "causal"])
def test_debias_term_goes_to_zero_and_attribute_states_stay(
    dirs: dict[str, Path], tmp_path: Path, model_type: str
) -> None:
    model, tokenizer = load(dirs[model_type], model_type)
    objective = Objective(kind="at")
    probe = _task(model, tokenizer, model_type, objective)  # its frozen copy: the original
    probe.vectors = probe._formula_vectors()
    debias_before, _ = _measure(probe, model)
    summary = _train(model, tokenizer, model_type, objective, tmp_path / "at")
    debias_after, distance = _measure(probe, model)

    assert summary.objective == "at"
    curve = summary.curve
    assert set(curve[0].terms) == {"debias", "regulariser"}
    assert sum(p.loss for p in curve[-5:]) < 0.2 * sum(p.loss for p in curve[:5])
    assert curve[-1].terms["debias"] < 0.1 * curve[0].terms["debias"]
    assert debias_after < 0.1 * debias_before
    assert distance < 0.15, "the regulariser keeps the attribute words' states"

    # Without the regulariser the attribute states drift far more.
    free, _ = load(dirs[model_type], model_type)
    _train(free, tokenizer, model_type, Objective(kind="at", at_beta=0.0), tmp_path / "free")
    _, free_distance = _measure(probe, free)
    assert free_distance > 3 * distance


@pytest.mark.parametrize(
    ("compat", "level", "layers"),
    [
        ("reference", "token", "all"),
        ("reference", "sentence", "last"),
        ("reference", "token", "first"),
        ("formula", "sentence", "all"),
        ("formula", "token", "first"),
        ("formula", "token", "last"),
    ],
)
def test_every_mode_trains(
    dirs: dict[str, Path], tmp_path: Path, compat: str, level: str, layers: str
) -> None:
    model, tokenizer = load(dirs["masked"], "masked")
    objective = Objective(kind="at", at_compat=compat, at_level=level, at_layers=layers)  # type: ignore[arg-type]
    summary = train_model(
        model,
        tokenizer,
        model_type="masked",
        objective=objective,
        data=DATA,
        settings=TrainingSpec(steps=20, learning_rate=2e-3, batch_size=8, seed=1),
        work_dir=tmp_path,
        device=CPU,
    )
    first, last = summary.curve[0].terms, summary.curve[-1].terms
    assert all(torch.isfinite(torch.tensor(list(t.values()))).all() for t in (first, last))
    debias = [p.terms["debias"] for p in summary.curve]
    assert sum(debias[-4:]) < 0.5 * sum(debias[:4])


def test_vector_spaces_of_the_two_modes(dirs: dict[str, Path]) -> None:
    model, tokenizer = load(dirs["masked"], "masked")
    layers, hidden = model.config.num_hidden_layers, model.config.hidden_size
    formula = _task(model, tokenizer, "masked", Objective(kind="at"))
    vectors = formula._formula_vectors()
    assert vectors.shape == (2, layers, hidden), "formula: the N layer outputs"
    # the male vector at the last layer: the mean state of "he" in the male sentences
    encoded = tokenizer(list(gendered_sentences("he")), return_tensors="pt", padding=True)
    with torch.no_grad():
        states = model.bert(**encoded, output_hidden_states=True).hidden_states[-1]
    assert torch.allclose(vectors[0, -1], states[:, 1].mean(dim=0), atol=1e-5)
    reference = _task(model, tokenizer, "masked", Objective(kind="at", at_compat="reference"))
    assert reference._reference_vectors(model).shape == (2, layers + 1, hidden)


def test_reference_weights_reproduce_the_one_hot_table() -> None:
    # All words one token: positions as they are, weight 1.
    assert reference_weights([(2,), (1,)], 4).tolist() == [[0, 0, 1, 0], [0, 1, 0, 0]]
    # A two-token word in the batch: every position one place left, weight 1/2.
    weights = reference_weights([(3, 4), (2,)], 6).tolist()
    assert weights == [[0, 0, 0.5, 0.5, 0, 0], [0, 0.5, 0, 0, 0, 0]]


def test_words_are_found_as_token_positions(dirs: dict[str, Path]) -> None:
    from audit.variants.cda import gendered_word_regex

    model, tokenizer = load(dirs["masked"], "masked")
    text = "she is a doctor and he is a nurse ."
    [enc] = encode_sentences(
        tokenizer, model, [text], model_type="masked", max_length=64, offsets=True
    )
    regex = gendered_word_regex(["he", "she"])
    found = locate(enc, text, regex, {"he": "male", "she": "female"})
    assert found.classes == ("female", "male")
    tokens = tokenizer.convert_ids_to_tokens(list(enc.ids))
    assert [tokens[p] for w in found.words for p in w] == ["she", "he"]
    [short] = encode_sentences(
        tokenizer, model, [text], model_type="masked", max_length=6, offsets=True
    )
    assert locate(short, text, regex, {"he": "male", "she": "female"}).classes == ("female",)


def test_missing_words_are_user_errors(dirs: dict[str, Path]) -> None:
    model, tokenizer = load(dirs["masked"], "masked")
    kwargs: dict[str, Any] = {
        "model": model,
        "tokenizer": tokenizer,
        "model_type": "masked",
        "batch_size": 4,
        "max_length": 32,
        "seed": 0,
        "device": CPU,
    }
    no_words = TrainingData(
        target_sentences=NEUTRAL,
        attribute_sentences=("the doctor works .",),
        attribute_words={"male": ("he",), "female": ("she",)},
    )
    with pytest.raises(AuditUserError, match="no attribute word was found"):
        AttributeTargetTask(ObjectiveSetup(objective=Objective(kind="at"), data=no_words, **kwargs))
    one_class = TrainingData(
        target_sentences=NEUTRAL,
        attribute_sentences=tuple(gendered_sentences("he")),
        attribute_words={"male": ("he",), "female": ("she",)},
    )
    with pytest.raises(AuditUserError, match="class\\(es\\) female"):
        AttributeTargetTask(
            ObjectiveSetup(objective=Objective(kind="at"), data=one_class, **kwargs)
        )
    no_targets = TrainingData(
        target_sentences=NEUTRAL,
        attribute_sentences=DATA.attribute_sentences,
        attribute_words=DATA.attribute_words,
    )
    with pytest.raises(AuditUserError, match="no target words"):
        AttributeTargetTask(
            ObjectiveSetup(
                objective=Objective(kind="at", at_compat="reference"), data=no_targets, **kwargs
            )
        )
