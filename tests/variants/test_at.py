"""AT (Kaneko & Bollegala 2021) on tiny models: the debias term goes towards zero while the
regulariser keeps the attribute words' states near the original and the model's
pseudo-perplexity near the base's; the formula's terms are means; the reference mode
trains one term a step, as the reference code does."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import torch

from audit.errors import AuditUserError
from audit.models.loaded import LoadedModel
from audit.scoring.base import ScoringCall
from audit.scoring.masked.scorers import PLL_SCORER
from audit.scoring.options import MaskedOptions
from audit.training.encode import encode_sentences
from audit.training.schedule import Stream
from audit.variants.methods.at import at_objective
from audit.variants.methods.at_data import AtData, at_training_data
from audit.variants.methods.at_loss import (
    DEBIAS_STEP,
    AttributeTargetTask,
    fresh_batch,
    locate,
    reference_kind,
    reference_weights,
)
from audit.variants.objective import ObjectiveSetup
from audit.variants.settings import TrainingSpec
from audit.variants.trainer import Objective, TrainingData, train_model
from tests.variants.tiny_lm import CORPUS, NEUTRAL, OCCUPATIONS, gendered_sentences, load

CPU = torch.device("cpu")
DATA = at_training_data(
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


def _task(
    model: Any, tokenizer: Any, model_type: str, objective: Objective, batch_size: int = 8
) -> Any:
    return AttributeTargetTask(
        ObjectiveSetup(
            model=model,
            tokenizer=tokenizer,
            model_type=model_type,  # type: ignore[arg-type]
            objective=objective,
            data=DATA,
            batch_size=batch_size,
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
    objective = at_objective()
    probe = _task(model, tokenizer, model_type, objective)  # its frozen copy: the original
    probe.vectors = probe._formula_vectors()
    debias_before, _ = _measure(probe, model)
    summary = _train(model, tokenizer, model_type, objective, tmp_path / "at")
    debias_after, distance = _measure(probe, model)

    assert summary.objective == "at"
    curve = summary.curve
    assert set(curve[0].terms) == {"debias", "regulariser"}
    # The loss does not go to 0: the regulariser grows as the states move.
    assert sum(p.loss for p in curve[-5:]) < 0.5 * sum(p.loss for p in curve[:5])
    assert curve[-1].terms["debias"] < 0.25 * curve[0].terms["debias"]
    assert debias_after < 0.1 * debias_before
    assert distance < 0.15, "the regulariser keeps the attribute words' states"

    # Without the regulariser the attribute states drift far more.
    free, _ = load(dirs[model_type], model_type)
    _train(free, tokenizer, model_type, at_objective(beta=0.0), tmp_path / "free")
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
    objective = at_objective(compat=compat, level=level, layers=layers)  # type: ignore[arg-type]
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
    # The reference trains one term a step: the debias term of the steps that trained it.
    debias = [p.terms["debias"] for p in summary.curve if "debias" in p.terms]
    assert len(debias) >= 6
    assert sum(debias[-3:]) < 0.5 * sum(debias[:3])


def test_vector_spaces_of_the_two_modes(dirs: dict[str, Path]) -> None:
    model, tokenizer = load(dirs["masked"], "masked")
    layers, hidden = model.config.num_hidden_layers, model.config.hidden_size
    formula = _task(model, tokenizer, "masked", at_objective())
    vectors = formula._formula_vectors()
    assert vectors.shape == (2, layers, hidden), "formula: the N layer outputs"
    # the male vector at the last layer: the mean state of "he" in the male sentences
    encoded = tokenizer(list(gendered_sentences("he")), return_tensors="pt", padding=True)
    with torch.no_grad():
        states = model.bert(**encoded, output_hidden_states=True).hidden_states[-1]
    assert torch.allclose(vectors[0, -1], states[:, 1].mean(dim=0), atol=1e-5)
    reference = _task(model, tokenizer, "masked", at_objective(compat="reference"))
    assert reference._reference_vectors(model, 0).shape == (2, layers + 1, hidden)


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
    no_words = at_training_data(
        target_sentences=NEUTRAL,
        attribute_sentences=("the doctor works .",),
        attribute_words={"male": ("he",), "female": ("she",)},
    )
    with pytest.raises(AuditUserError, match="no attribute word was found"):
        AttributeTargetTask(ObjectiveSetup(objective=at_objective(), data=no_words, **kwargs))
    one_class = at_training_data(
        target_sentences=NEUTRAL,
        attribute_sentences=tuple(gendered_sentences("he")),
        attribute_words={"male": ("he",), "female": ("she",)},
    )
    with pytest.raises(AuditUserError, match="class\\(es\\) female"):
        AttributeTargetTask(ObjectiveSetup(objective=at_objective(), data=one_class, **kwargs))
    no_targets = at_training_data(
        target_sentences=NEUTRAL,
        attribute_sentences=DATA.own_as(AtData).attribute_sentences,
        attribute_words=DATA.own_as(AtData).attribute_words,
    )
    with pytest.raises(AuditUserError, match="no target words"):
        AttributeTargetTask(
            ObjectiveSetup(objective=at_objective(compat="reference"), data=no_targets, **kwargs)
        )


# -- the formula's terms are means --------------------------------------------------------


def test_formula_terms_are_means_in_the_same_units(
    dirs: dict[str, Path],
) -> None:
    model, tokenizer = load(dirs["masked"], "masked")
    task = _task(model, tokenizer, "masked", at_objective())
    task.vectors = task._formula_vectors()
    rows = task.targets[:3]
    with torch.no_grad():
        debias = float(task._debias(model, rows))
    squares: list[float] = []
    for row in rows:
        with torch.no_grad():
            states = task._hidden(model, task._batch([row]))  # one sentence: no padding
        for i in range(len(row.enc.ids)):
            if row.enc.special[i]:
                continue
            for layer, h in enumerate(states):
                for c in range(len(task.classes)):
                    v = task.vectors[c, layer]
                    squares.append(float(v @ h[0, i]) ** 2 / float(v @ v) / v.numel())
    assert debias == pytest.approx(sum(squares) / len(squares), rel=1e-5)

    with torch.no_grad():  # a changed model, so that the states differ from the original
        model.bert.encoder.layer[0].output.dense.weight.add_(0.05)
    attributes = task.attributes[:4]
    with torch.no_grad():
        regulariser = float(task._regulariser(model, attributes))
    total, count = 0.0, 0
    for row in attributes:
        batch = task._batch([row])
        with torch.no_grad():
            now, before = task._hidden(model, batch), task._hidden(task.frozen, batch)
        for p in row.positions():
            for h, h0 in zip(now, before, strict=True):
                total += float(((h[0, p] - h0[0, p]) ** 2).sum())
                count += h.shape[-1]
    assert regulariser > 0
    assert regulariser == pytest.approx(total / count, rel=1e-5)


# -- the reference's step structure ---------------------------------------------------------


def test_reference_steps_train_one_term_on_one_kind_each(dirs: dict[str, Path]) -> None:
    model, tokenizer = load(dirs["masked"], "masked")
    objective = at_objective(compat="reference")
    task = _task(model, tokenizer, "masked", objective, batch_size=2)
    # 7 sentences per class, batches of 2: 3 steps of each kind in a pass of 9.
    assert task.per_kind == 3
    kinds = [reference_kind(s, task.per_kind, 3, task.seed) for s in range(27)]
    passes = [kinds[i : i + 9] for i in range(0, 27, 9)]
    assert all(sorted(p) == [0, 0, 0, 1, 1, 1, 2, 2, 2] for p in passes)
    assert len({tuple(p) for p in passes}) > 1, "each pass has its own seeded order"

    model.eval()  # no dropout: each step's loss is recomputed exactly below
    vectors_at: list[int] = []
    for step in range(10):
        result = task.step_loss(model, step)
        vectors_at.append(id(task.vectors))
        kind = kinds[step]
        if kind == DEBIAS_STEP:
            order = fresh_batch(len(task.targets), 2, task.seed, Stream.ORDER, step)
            term = task._debias(model, [task.targets[i] for i in order])
            assert math.isnan(float(result.terms["regulariser"]))
            assert torch.equal(result.terms["debias"], term)
            assert torch.allclose(result.loss, objective.settings["alpha"] * term)
        else:
            found = task.by_class[task.classes[kind - 1]]
            order = fresh_batch(len(found), 2, task.seed, Stream.ATTRIBUTE_ORDER, step)
            rows = [found[i] for i in order]
            assert {r.classes[0] for r in rows} == {task.classes[kind - 1]}
            term = task._regulariser(model, rows)
            assert math.isnan(float(result.terms["debias"]))
            assert torch.allclose(result.loss, objective.settings["beta"] * term)
    # The vectors are taken again at the start of every pass (steps 0 and 9) only.
    assert len(set(vectors_at[:9])) == 1 and vectors_at[9] != vectors_at[0]


def test_reference_curve_keeps_each_term_of_the_steps_that_computed_it(
    dirs: dict[str, Path], tmp_path: Path
) -> None:
    model, tokenizer = load(dirs["masked"], "masked")
    summary = _train(model, tokenizer, "masked", at_objective(compat="reference"), tmp_path)
    points = summary.curve
    assert len(points) == 40 and all(p.terms for p in points)
    # One step per point: each point holds the one term its step trained.
    assert all(len(p.terms) == 1 for p in points)
    assert {name for p in points for name in p.terms} == {"debias", "regulariser"}
    for p in points:
        ((name, value),) = p.terms.items()
        weight = 0.2 if name == "debias" else 0.8
        assert p.loss == pytest.approx(weight * value, rel=1e-6)


# -- the language model survives -------------------------------------------------------------

HELD_OUT = (
    "the teacher helps the patient .",
    "the lawyer reads a book .",
    "the artist works at the hospital .",
    "the doctor counts the money .",
    "the engineer talks to the judge .",
    "a friend paints a picture .",
)


def _pseudo_perplexity(model: Any, tokenizer: Any) -> float:
    """exp of minus the mean per-token PLL over the held-out sentences."""
    loaded = LoadedModel("tiny", "masked", model.eval(), tokenizer, CPU, None, "tiny")
    scores = PLL_SCORER.score_sentences(
        loaded, HELD_OUT, ScoringCall(MaskedOptions(), lambda _n: None)
    )
    return math.exp(-sum(s.score for s in scores) / sum(s.n_tokens for s in scores))


def test_at_lowers_the_debias_term_and_keeps_the_pseudo_perplexity(
    dirs: dict[str, Path], tmp_path: Path
) -> None:
    model, tokenizer = load(dirs["masked"], "masked")
    # First a tiny LM that has learnt its corpus, so that damage can show.
    train_model(
        model,
        tokenizer,
        model_type="masked",
        objective=Objective(kind="lm"),
        data=TrainingData(sentences=tuple(CORPUS)),
        settings=TrainingSpec(steps=300, learning_rate=5e-3, batch_size=8, seed=1),
        work_dir=tmp_path / "lm",
        device=CPU,
    )
    base = _pseudo_perplexity(model, tokenizer)
    assert base < 0.2 * len(tokenizer), "the tiny LM has learnt its corpus"
    learnt = {k: v.clone() for k, v in model.state_dict().items()}

    def at(beta: float, work: str) -> tuple[float, float]:
        model.load_state_dict(learnt)
        probe = _task(model, tokenizer, "masked", at_objective())
        probe.vectors = probe._formula_vectors()
        before, _ = _measure(probe, model)
        _train(model, tokenizer, "masked", at_objective(beta=beta), tmp_path / work)
        after, _ = _measure(probe, model)
        return after / before, _pseudo_perplexity(model, tokenizer)

    debias_ratio, pppl = at(0.8, "at")
    assert debias_ratio < 0.5, "AT lowers its debias term"
    assert pppl <= 1.1 * base, f"pseudo-perplexity {pppl:.2f} against the base's {base:.2f}"
