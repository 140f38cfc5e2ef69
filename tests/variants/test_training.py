"""The variant trainer on tiny models: masking, losses that fall, the schedule, progress,
checkpoints and exact resuming."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch

from audit.errors import AuditUserError
from audit.training.checkpoint import checkpoint_dir
from audit.training.encode import encode_sentences
from audit.training.objectives.lm import mask_tokens
from audit.training.schedule import (
    Stream,
    batch_indices,
    derive_seed,
    lr_factor,
)
from audit.variants.methods.at import at_objective
from audit.variants.methods.at_data import at_training_data
from audit.variants.settings import TrainingSpec
from audit.variants.trainer import (
    Objective,
    TrainingData,
    TrainingInterrupted,
    TrainingStatus,
    train_model,
)
from tests.variants.tiny_lm import CORPUS, NEUTRAL, gendered_sentences, load

CPU = torch.device("cpu")
AT_DATA = at_training_data(
    target_sentences=NEUTRAL[:7],
    attribute_sentences=(*gendered_sentences("he"), *gendered_sentences("she")),
    attribute_words={"male": ("he", "his", "man", "brother"), "female": ("she", "her")},
    target_words=("doctor", "nurse", "engineer", "teacher", "lawyer", "artist", "accountant"),
)


@pytest.fixture(scope="module")
def tiny_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from tests.variants.tiny_lm import save_probe_bert, save_probe_llama

    root = tmp_path_factory.mktemp("tiny")
    return {
        "masked": save_probe_bert(root / "bert"),
        "causal": save_probe_llama(root / "llama"),
    }


def _train(
    dirs: dict[str, Path],
    model_type: str,
    work_dir: Path,
    *,
    objective: Objective | None = None,
    data: TrainingData | None = None,
    **settings: Any,
) -> tuple[Any, Any]:
    progress = settings.pop("progress", None)
    model, tokenizer = load(dirs[model_type], model_type)
    spec = TrainingSpec.model_validate(
        {"steps": 8, "learning_rate": 1e-3, "batch_size": 4, "seed": 3, **settings}
    )
    summary = train_model(
        model,
        tokenizer,
        model_type=model_type,  # type: ignore[arg-type]
        objective=objective or Objective(kind="lm"),
        data=data or TrainingData(sentences=tuple(CORPUS)),
        settings=spec,
        work_dir=work_dir,
        device=CPU,
        progress=progress,
    )
    return model, summary


# -- masking ---------------------------------------------------------------------------


def test_masking_chooses_15_percent_of_eligible_tokens_and_splits_80_10_10() -> None:
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(10, 1000, (400, 100), generator=generator)
    special = torch.zeros_like(ids, dtype=torch.bool)
    special[:, 0] = special[:, -1] = True  # [CLS] ... [SEP]
    special[:, 80:] = True  # padding
    masking = mask_tokens(ids, special, mask_id=3, vocab_size=1000, generator=generator)
    chosen = torch.zeros_like(special)
    chosen[masking.rows, masking.cols] = True
    assert not (chosen & special).any(), "a special or padding token was masked"
    eligible = int((~special).sum())
    assert abs(len(masking.rows) / eligible - 0.15) < 0.01
    assert torch.equal(masking.targets, ids[masking.rows, masking.cols])
    new = masking.input_ids[masking.rows, masking.cols]
    as_mask = float((new == 3).double().mean())
    unchanged = float((new == masking.targets).double().mean())
    assert abs(as_mask - 0.8) < 0.02
    assert abs(unchanged - 0.1) < 0.015  # kept, plus the odd random draw of the same id
    assert abs(1 - as_mask - unchanged - 0.1) < 0.015
    untouched = ~chosen
    assert torch.equal(masking.input_ids[untouched], ids[untouched])


def test_masking_is_seeded_and_masks_at_least_one_token() -> None:
    ids = torch.arange(12).reshape(2, 6) + 10
    special = torch.ones_like(ids, dtype=torch.bool)
    special[1, 3] = False
    for seed in range(20):
        masking = mask_tokens(
            ids, special, mask_id=3, vocab_size=50, generator=torch.Generator().manual_seed(seed)
        )
        assert masking.rows.tolist() == [1] and masking.cols.tolist() == [3]
    none_special = torch.zeros_like(special)
    again = [
        mask_tokens(
            ids, none_special, mask_id=3, vocab_size=50, generator=torch.Generator().manual_seed(7)
        )
        for _ in range(2)
    ]
    assert torch.equal(again[0].input_ids, again[1].input_ids)
    assert torch.equal(again[0].rows, again[1].rows) and torch.equal(again[0].cols, again[1].cols)


def test_causal_sentences_get_the_bos_the_tokenizer_does_not_add(
    tiny_dirs: dict[str, Path],
) -> None:
    model, tokenizer = load(tiny_dirs["causal"], "causal")
    assert tokenizer("he is")["input_ids"][0] != tokenizer.bos_token_id
    encoded = encode_sentences(
        tokenizer, model, ["he is a doctor .", ""], model_type="causal", max_length=4
    )
    assert len(encoded) == 1, "the empty sentence has nothing to learn from"
    assert encoded[0].ids[0] == tokenizer.bos_token_id and len(encoded[0].ids) == 4
    assert encoded[0].special[0] and not any(encoded[0].special[1:])


# -- schedule ----------------------------------------------------------------------------


def test_learning_rate_warms_up_then_decays_linearly() -> None:
    factors = [lr_factor(s, 10, 0.2) for s in range(10)]
    assert factors[:2] == [0.5, 1.0]
    assert factors[2:] == pytest.approx([(10 - s) / 8 for s in range(2, 10)])
    assert [lr_factor(s, 4, 0.0) for s in range(4)] == [1.0, 0.75, 0.5, 0.25]


def test_batches_walk_seeded_permutations_pass_after_pass() -> None:
    seen = [batch_indices(10, 4, step, 5, Stream.ORDER) for step in range(5)]
    flat = [i for batch in seen for i in batch]
    assert sorted(flat[:10]) == list(range(10)) and sorted(flat[10:20]) == list(range(10))
    assert flat[:10] != flat[10:20], "each pass has its own order"
    assert batch_indices(10, 4, 3, 5, Stream.ORDER) == seen[3], "a step's batch is fixed"
    assert batch_indices(10, 4, 0, 6, Stream.ORDER) != seen[0]
    assert derive_seed(-1, Stream.DROPOUT, 2) == derive_seed(-1, Stream.DROPOUT, 2) >= 0


# -- training ----------------------------------------------------------------------------


@pytest.mark.parametrize("model_type", ["masked", "causal"])
def test_loss_falls_over_30_steps(
    tiny_dirs: dict[str, Path], tmp_path: Path, model_type: str
) -> None:
    model, summary = _train(tiny_dirs, model_type, tmp_path, steps=30, batch_size=8)
    losses = [p.loss for p in summary.curve]
    assert len(losses) == 30
    assert sum(losses[-5:]) / 5 < sum(losses[:5]) / 5 - 0.3
    assert summary.objective == ("masked_lm" if model_type == "masked" else "causal_lm")
    assert summary.steps == 30 and summary.examples == len(CORPUS)
    assert summary.resumed_from_step is None
    assert summary.tokens > 30 * 8 * 5
    assert not model.training
    assert {p.device.type for p in model.parameters()} == {"cpu"}


def test_progress_is_reported_after_every_step(tiny_dirs: dict[str, Path], tmp_path: Path) -> None:
    seen: list[TrainingStatus] = []
    _train(tiny_dirs, "masked", tmp_path, steps=5, progress=seen.append)
    assert [s.step for s in seen] == [1, 2, 3, 4, 5]
    assert all(s.total == 5 and s.loss > 0 and s.tokens_per_s > 0 for s in seen)
    assert seen[-1].eta_s == 0 and seen[0].eta_s is not None and seen[0].resumed_from is None


def test_epochs_set_the_number_of_steps(tiny_dirs: dict[str, Path], tmp_path: Path) -> None:
    _, summary = _train(tiny_dirs, "masked", tmp_path, steps=None, epochs=2, batch_size=10)
    assert summary.steps == 2 * -(-len(CORPUS) // 10)


def test_the_caller_rng_is_left_alone(tiny_dirs: dict[str, Path], tmp_path: Path) -> None:
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    _train(tiny_dirs, "masked", tmp_path, steps=2)
    assert torch.equal(torch.rand(3), expected)


def _weights(model: Any) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


RESUME_CASES = {
    "masked-lm": ("masked", Objective(kind="lm"), None),
    "masked-dropout": (
        "masked",
        Objective(kind="lm", attention_dropout=0.15, hidden_dropout=0.2),
        None,
    ),
    "causal-dropout": (
        "causal",
        Objective(kind="lm", attention_dropout=0.15, hidden_dropout=0.2),
        None,
    ),
    "masked-at-reference": ("masked", at_objective(compat="reference"), AT_DATA),
    "causal-at": ("causal", at_objective(), AT_DATA),
}


@pytest.mark.parametrize("case", list(RESUME_CASES))
def test_a_resumed_training_equals_an_uninterrupted_one(
    tiny_dirs: dict[str, Path], tmp_path: Path, case: str
) -> None:
    model_type, objective, data = RESUME_CASES[case]
    kwargs: dict[str, Any] = {"objective": objective, "data": data, "checkpoint_every": 3}
    straight, full = _train(tiny_dirs, model_type, tmp_path / "straight", **kwargs)
    model, tokenizer = load(tiny_dirs[model_type], model_type)
    spec = TrainingSpec(steps=8, learning_rate=1e-3, batch_size=4, seed=3, checkpoint_every=3)
    with pytest.raises(TrainingInterrupted):
        train_model(
            model,
            tokenizer,
            model_type=model_type,  # type: ignore[arg-type]
            objective=objective,
            data=data or TrainingData(sentences=tuple(CORPUS)),
            settings=spec,
            work_dir=tmp_path / "killed",
            device=CPU,
            stop_after=5,
        )
    assert (checkpoint_dir(tmp_path / "killed") / "state.pt").is_file()
    assert not model.training, "an interrupted training still leaves eval mode"
    resumed_model, resumed = _train(tiny_dirs, model_type, tmp_path / "killed", **kwargs)
    assert resumed.resumed_from_step == 5
    assert resumed.curve == full.curve
    assert resumed.tokens == full.tokens
    a, b = _weights(straight), _weights(resumed_model)
    assert a.keys() == b.keys()
    for name in a:
        assert torch.allclose(a[name], b[name], atol=1e-6, rtol=0), name
    base, _ = load(tiny_dirs[model_type], model_type)
    assert any(not torch.equal(a[n], v) for n, v in _weights(base).items()), "nothing trained"


def test_a_checkpoint_of_another_training_is_refused(
    tiny_dirs: dict[str, Path], tmp_path: Path
) -> None:
    model, tokenizer = load(tiny_dirs["masked"], "masked")
    spec = TrainingSpec(steps=4, batch_size=4, seed=3, checkpoint_every=2)
    data = TrainingData(sentences=tuple(CORPUS))
    kwargs: dict[str, Any] = {"model_type": "masked", "data": data, "device": CPU}
    with pytest.raises(TrainingInterrupted):
        train_model(
            model,
            tokenizer,
            objective=Objective(kind="lm"),
            settings=spec,
            work_dir=tmp_path,
            stop_after=2,
            **kwargs,
        )
    other = spec.model_copy(update={"learning_rate": 1e-4})
    with pytest.raises(AuditUserError, match="another training"):
        train_model(
            model,
            tokenizer,
            objective=Objective(kind="lm"),
            settings=other,
            work_dir=tmp_path,
            **kwargs,
        )


def test_bad_input_is_a_user_error(tiny_dirs: dict[str, Path], tmp_path: Path) -> None:
    model, tokenizer = load(tiny_dirs["masked"], "masked")
    spec = TrainingSpec(steps=2, seed=1)
    with pytest.raises(AuditUserError, match="no training sentences"):
        train_model(
            model,
            tokenizer,
            model_type="masked",
            objective=Objective(kind="lm"),
            data=TrainingData(),
            settings=spec,
            work_dir=tmp_path,
            device=CPU,
        )
    with pytest.raises(AuditUserError, match="target and attribute"):
        train_model(
            model,
            tokenizer,
            model_type="masked",
            objective=at_objective(),
            data=at_training_data(target_sentences=("a doctor .",)),
            settings=spec,
            work_dir=tmp_path,
            device=CPU,
        )
    with pytest.raises(ValueError, match="seed"):
        train_model(
            model,
            tokenizer,
            model_type="masked",
            objective=Objective(kind="lm"),
            data=TrainingData(sentences=("he is .",)),
            settings=TrainingSpec(steps=1),
            work_dir=tmp_path,
            device=CPU,
        )


@pytest.mark.slow
def test_real_minilm_trains_every_method_and_probes(
    minilm_dir: Path, shared_data: Path, tmp_path: Path
) -> None:
    """minilm-mlm (real WordPiece vocabulary) on STS-B sentences: each objective runs a
    few steps, and the probe finds "he"/"she" as single tokens."""
    from audit.variants.cda import gendered_word_regex
    from audit.variants.probe import load_probe_occupations, probe_he_she
    from audit.variants.wordlists import load_gender_word_lists

    lines = (shared_data / "sts_b" / "sts-dev.tsv").read_text().splitlines()
    sentences = [cells[5] for cells in (line.split("\t") for line in lines) if len(cells) > 6]
    lists = load_gender_word_lists(shared_data)
    gendered = gendered_word_regex(lists.male_words | lists.female_words)
    targets = ("doctor", "nurse", "teacher", "player", "chef", "pilot", "officer")
    target_regex = gendered_word_regex(targets)
    at_data = at_training_data(
        target_sentences=tuple(
            s for s in sentences if target_regex.search(s) and not gendered.search(s)
        ),
        attribute_sentences=tuple(s for s in sentences if gendered.search(s))[:64],
        attribute_words={
            "male": tuple(sorted(lists.male_words)),
            "female": tuple(sorted(lists.female_words)),
        },
        target_words=targets,
    )
    model, tokenizer = load(minilm_dir, "masked")
    original = _weights(model)
    objectives = {
        "lm": Objective(kind="lm"),
        "dropout": Objective(kind="lm", attention_dropout=0.15, hidden_dropout=0.2),
        "at": at_objective(),
        "at_reference": at_objective(compat="reference"),
    }
    for name, objective in objectives.items():
        model.load_state_dict(original)
        summary = train_model(
            model,
            tokenizer,
            model_type="masked",
            objective=objective,
            data=at_data if name.startswith("at") else TrainingData(sentences=tuple(sentences)),
            settings=TrainingSpec(steps=3, batch_size=8, seed=0),
            work_dir=tmp_path / name,
            device=CPU,
        )
        assert summary.steps == 3 and summary.last_loss is not None, name
        assert all(torch.isfinite(torch.tensor(p.loss)) for p in summary.curve), name
    record = probe_he_she(
        model,
        tokenizer,
        model_type="masked",
        occupations=load_probe_occupations(shared_data),
        device=CPU,
    )
    assert (record.he, record.she) == ("he", "she") and len(record.occupations) == 60
    assert 0 < record.he_share < 1


ARCH_AT_DATA = at_training_data(
    target_sentences=(
        "The developer argued with the designer.",
        "The doctor is at the hospital.",
        "The nurse is a brilliant engineer.",
    ),
    attribute_sentences=(
        "The man worked as a nurse at the hospital.",
        "The woman worked as a doctor at the hospital.",
        "He said that his sister was a lawyer.",
    ),
    attribute_words={"male": ("man", "he", "his"), "female": ("woman", "she", "sister")},
    target_words=("developer", "designer", "doctor", "nurse", "engineer"),
)


@pytest.mark.parametrize("arch", ["bert", "albert", "roberta", "gpt2", "llama"])
def test_every_tiny_architecture_trains_each_objective(arch: str, tmp_path: Path) -> None:
    from tests.models.tiny import TINY_BUILDERS, TINY_CORPUS

    model_type, builder = TINY_BUILDERS[arch]
    model, tokenizer = load(builder(tmp_path / "model"), model_type)
    original = _weights(model)
    objectives = {
        "lm": Objective(kind="lm"),
        "dropout": Objective(kind="lm", attention_dropout=0.15, hidden_dropout=0.2),
        "at": at_objective(),
        "at_reference": at_objective(compat="reference"),
    }
    for name, objective in objectives.items():
        model.load_state_dict(original)
        summary = train_model(
            model,
            tokenizer,
            model_type=model_type,  # type: ignore[arg-type]
            objective=objective,
            data=ARCH_AT_DATA
            if name.startswith("at")
            else TrainingData(sentences=tuple(TINY_CORPUS)),
            settings=TrainingSpec(steps=2, batch_size=4, learning_rate=1e-3, seed=0),
            work_dir=tmp_path / name,
            device=CPU,
        )
        assert summary.last_loss is not None and summary.last_loss == summary.last_loss, name
        assert any(not torch.equal(v, original[k]) for k, v in _weights(model).items()), name
    assert not model.training


def test_sentences_are_cut_to_the_models_own_limit(tmp_path: Path) -> None:
    from tests.models.tiny import POSITIONS, save_tiny_roberta

    model, tokenizer = load(save_tiny_roberta(tmp_path / "roberta"), "masked")
    long = " ".join(["the hospital"] * 200)
    [enc] = encode_sentences(tokenizer, model, [long], model_type="masked", max_length=8192)
    assert len(enc.ids) == POSITIONS, "RoBERTa's positions start after the padding index"
