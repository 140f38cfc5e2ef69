"""Extrinsic fine-tuning on tiny models: inputs per model type, pooling, the regression
head learning, the checkpoint callback, exact resuming, predictions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from pydantic import ValidationError

from audit.errors import AuditUserError
from audit.extrinsic.finetune.heads import pool
from audit.extrinsic.finetune.inputs import InputEncoder
from audit.extrinsic.finetune.settings import FineTuneSettings
from audit.extrinsic.finetune.tune import finetune
from audit.extrinsic.kinds.regression import REGRESSION, evaluate_sts, predict_similarity
from audit.extrinsic.sts_data import StsRow
from audit.models.loaded import LoadedModel
from audit.training.checkpoint import checkpoint_dir
from audit.training.status import TrainingInterrupted, TrainingStatus
from tests.models.tiny import TINY_CORPUS, save_tiny_bert, save_tiny_gpt2, save_tiny_llama

CPU = torch.device("cpu")
MODEL_TYPES = {"bert": "masked", "llama": "causal", "gpt2": "causal"}


@pytest.fixture(scope="module")
def tiny_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tiny_finetune")
    return {
        "bert": save_tiny_bert(root / "bert"),
        "llama": save_tiny_llama(root / "llama"),
        "gpt2": save_tiny_gpt2(root / "gpt2"),
    }


def load_tiny(dirs: dict[str, Path], name: str) -> LoadedModel:
    from transformers import AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer

    model_type = MODEL_TYPES[name]
    loader = AutoModelForMaskedLM if model_type == "masked" else AutoModelForCausalLM
    model = loader.from_pretrained(dirs[name]).eval()
    return LoadedModel(
        model_id=f"tiny-{name}",
        model_type=model_type,  # type: ignore[arg-type]
        model=model,
        tokenizer=AutoTokenizer.from_pretrained(dirs[name]),
        device=CPU,
        autocast_dtype=None,
        fingerprint=f"fingerprint-of-tiny-{name}",
    )


def sts_row(score: float, s1: str, s2: str, i: int = 0) -> StsRow:
    return StsRow(score, s1, s2, "genre", "file", "2017", str(i), i + 1)


def learnable_rows() -> list[StsRow]:
    """Tiny STS-like pairs whose score depends on the second sentence only: easy to learn
    in a few dozen steps, so a falling loss and a high Pearson mean the head learned."""
    rows = []
    for i, s in enumerate(TINY_CORPUS):
        rows.append(sts_row(5.0, s, "The capital of France is Paris.", 2 * i))
        rows.append(sts_row(0.0, s, "My friend is Black.", 2 * i + 1))
    return rows


def settings(**changes: Any) -> FineTuneSettings:
    base: dict[str, Any] = {
        "steps": 12,
        "learning_rate": 1e-2,
        "batch_size": 8,
        "seed": 3,
        "checkpoint_every": 4,
    }
    return FineTuneSettings.model_validate({**base, **changes})


def encoder_state(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


# --- settings ----------------------------------------------------------------------------


def test_settings_defaults_and_length() -> None:
    default = FineTuneSettings()
    assert (default.learning_rate, default.batch_size, default.max_length) == (5e-5, 16, 128)
    assert (default.warmup, default.checkpoint_every, default.pooling) == (0.1, 100, None)
    assert default.checkpoint == "best_dev"
    assert default.total_steps(10) == 2  # 2 epochs of one batch of 16
    assert FineTuneSettings(batch_size=4).total_steps(10) == 6  # ceil(10 / 4) * 2
    assert FineTuneSettings(epochs=0.5, batch_size=4).total_steps(10) == 2
    assert FineTuneSettings(steps=7).total_steps(10) == 7
    with pytest.raises(ValidationError, match="not both"):
        FineTuneSettings(steps=3, epochs=1)
    with pytest.raises(ValidationError):
        FineTuneSettings.model_validate({"stepz": 3})


def test_pooling_defaults_and_mismatch() -> None:
    assert FineTuneSettings().pooling_for("masked") == "cls"
    assert FineTuneSettings().pooling_for("causal") == "last"
    assert FineTuneSettings(pooling="mean").pooling_for("causal") == "mean"
    with pytest.raises(AuditUserError, match="'cls' does not apply to a causal LM"):
        FineTuneSettings(pooling="cls").pooling_for("causal")
    with pytest.raises(AuditUserError, match="'last' does not apply to a masked LM"):
        FineTuneSettings(pooling="last").pooling_for("masked")
    resolved = FineTuneSettings().resolved("causal", 7)
    assert (resolved.seed, resolved.pooling) == (7, "last")
    assert FineTuneSettings(seed=1).resolved("masked", 7).seed == 1


def test_pooling_mismatch_fails_before_training(tiny_dirs: dict[str, Path], tmp_path: Path) -> None:
    loaded = load_tiny(tiny_dirs, "llama")
    with pytest.raises(AuditUserError, match="pooling"):
        finetune(
            loaded,
            REGRESSION,
            learnable_rows(),
            [],
            settings=settings(pooling="cls"),
            work_dir=tmp_path / "w",
        )
    assert not (tmp_path / "w").exists()


# --- inputs and pooling ------------------------------------------------------------------


def test_masked_pairs_use_the_tokenizers_pair_encoding(tiny_dirs: dict[str, Path]) -> None:
    loaded = load_tiny(tiny_dirs, "bert")
    tok = loaded.tokenizer
    enc = InputEncoder(tok, loaded.model, model_type="masked", max_length=64, pooling="cls")
    [pair, single] = enc.encode([("The man worked.", "The woman worked."), "The man worked."])
    expected = tok("The man worked.", "The woman worked.")
    assert list(pair.ids) == expected["input_ids"]
    assert pair.type_ids is not None and list(pair.type_ids) == expected["token_type_ids"]
    assert set(pair.type_ids) == {0, 1}
    assert pair.ids[0] == tok.cls_token_id and pair.ids.count(tok.sep_token_id) == 2
    assert list(single.ids) == tok("The man worked.")["input_ids"]
    batch = enc.collate([pair, single])
    assert batch.token_type_ids is not None
    assert batch.attention_mask.sum().item() == len(pair.ids) + len(single.ids)
    assert batch.input_ids[1, len(single.ids) :].eq(tok.pad_token_id).all()


@pytest.mark.parametrize("name", ["llama", "gpt2"])
def test_causal_pairs_are_bos_a_eos_b_eos(tiny_dirs: dict[str, Path], name: str) -> None:
    loaded = load_tiny(tiny_dirs, name)
    tok = loaded.tokenizer
    enc = InputEncoder(tok, loaded.model, model_type="causal", max_length=64, pooling="last")
    a = tok("The man worked.", add_special_tokens=False)["input_ids"]
    b = tok("The nurse worked.", add_special_tokens=False)["input_ids"]
    [pair, single] = enc.encode([("The man worked.", "The nurse worked."), "The man worked."])
    bos, eos = tok.bos_token_id, tok.eos_token_id
    assert list(pair.ids) == [bos, *a, eos, *b, eos]
    assert list(single.ids) == [bos, *a, eos]
    assert pair.type_ids is None


@pytest.mark.parametrize("name", ["bert", "llama"])
def test_long_pairs_are_cut_to_max_length(tiny_dirs: dict[str, Path], name: str) -> None:
    loaded = load_tiny(tiny_dirs, name)
    model_type = MODEL_TYPES[name]
    pooling = "cls" if model_type == "masked" else "last"
    enc = InputEncoder(
        loaded.tokenizer,
        loaded.model,
        model_type=model_type,  # type: ignore[arg-type]
        max_length=16,
        pooling=pooling,  # type: ignore[arg-type]
    )
    long = " ".join(TINY_CORPUS)
    [both, first, single] = enc.encode([(long, long), (long, "Paris."), long])
    assert len(both.ids) == len(first.ids) == len(single.ids) == 16
    if model_type == "causal":
        eos = loaded.tokenizer.eos_token_id
        assert both.ids[-1] == eos and both.ids.count(eos) == 2
        # the longer text loses tokens first: "Paris." is kept whole
        paris = loaded.tokenizer("Paris.", add_special_tokens=False)["input_ids"]
        assert list(first.ids[-len(paris) - 1 : -1]) == paris


def test_model_limit_lowers_max_length(tiny_dirs: dict[str, Path]) -> None:
    loaded = load_tiny(tiny_dirs, "bert")  # 128 positions
    enc = InputEncoder(
        loaded.tokenizer, loaded.model, model_type="masked", max_length=4096, pooling="cls"
    )
    assert enc.max_length == 128


def test_pool_cls_mean_last() -> None:
    hidden = torch.arange(2 * 3 * 2, dtype=torch.float32).reshape(2, 3, 2)
    mask = torch.tensor([[1, 1, 1], [1, 1, 0]])
    assert torch.equal(pool(hidden, mask, "cls"), hidden[:, 0])
    assert torch.equal(pool(hidden, mask, "last"), torch.stack([hidden[0, 2], hidden[1, 1]]))
    mean = pool(hidden, mask, "mean")
    assert torch.allclose(mean[0], hidden[0].mean(dim=0))
    assert torch.allclose(mean[1], hidden[1, :2].mean(dim=0))


# --- learning ------------------------------------------------------------------------------


def mean_loss(points: list[Any]) -> float:
    return float(np.mean([p.loss for p in points]))


@pytest.mark.parametrize(
    ("name", "pooling", "steps", "learning_rate", "loss_below"),
    [
        ("bert", None, 80, 1e-2, 3.0),
        # a mean over every token learns more slowly, and the training loss (with dropout)
        # stays higher: Pearson shows that the pairs were told apart
        ("bert", "mean", 200, 3e-3, 7.5),
        ("llama", None, 80, 1e-2, 3.0),
        ("gpt2", None, 80, 1e-2, 3.0),
    ],
)
def test_regression_loss_falls_and_dev_pearson_rises(
    tiny_dirs: dict[str, Path],
    tmp_path: Path,
    name: str,
    pooling: str | None,
    steps: int,
    learning_rate: float,
    loss_below: float,
) -> None:
    loaded = load_tiny(tiny_dirs, name)
    before = encoder_state(loaded.model)
    rows = learnable_rows()
    done = finetune(
        loaded,
        REGRESSION,
        rows,
        rows,
        settings=settings(
            steps=steps, learning_rate=learning_rate, checkpoint_every=40, pooling=pooling
        ),
        work_dir=tmp_path / "work",
    )
    summary = done.summary
    assert summary.kind == "regression" and summary.steps == steps
    assert summary.pooling == (pooling or ("cls" if name == "bert" else "last"))
    # the first steps' MSE is about 15 (predictions near 0, scores 0 and 5); the mean
    # alone would give 6.25, so a loss well below that means the pairs were told apart
    assert mean_loss(summary.curve[:3]) > 10
    assert mean_loss(summary.curve[-10:]) < loss_below
    final = summary.final
    assert final is not None and final.step == steps and final.n == len(rows)
    assert final.pearson is not None and final.pearson > 0.8
    assert final.spearman is not None and final.spearman > 0.7  # at most 0.87 with ties
    predicted = predict_similarity(done.model, [("A man is here.", "My friend is Black.")])
    assert predicted.shape == (1,) and np.isfinite(predicted).all()
    assert summary.trainable_parameters == sum(p.numel() for p in done.model.parameters())
    # the audited model itself is not changed
    after = encoder_state(loaded.model)
    assert all(torch.equal(before[k], after[k]) for k in before)
    assert not done.model.training


def test_callback_fires_at_k_2k_and_the_end(tiny_dirs: dict[str, Path], tmp_path: Path) -> None:
    loaded = load_tiny(tiny_dirs, "bert")
    rows = learnable_rows()
    seen: list[tuple[int, bool, float]] = []

    def on_checkpoint(step: int, model: Any) -> None:
        value = float(predict_similarity(model, [("A man is here.", "A nurse is here.")])[0])
        seen.append((step, model.training, value))

    done = finetune(
        loaded,
        REGRESSION,
        rows,
        rows[:6],
        settings=settings(steps=10, checkpoint_every=4),
        work_dir=tmp_path / "a",
        on_checkpoint=on_checkpoint,
    )
    assert [s for s, _, _ in seen] == [4, 8, 10]
    assert not any(training for _, training, _ in seen)  # eval mode in the callback
    assert len({v for _, _, v in seen}) == 3  # the model changed between the points
    assert done.summary.checkpoint_steps == [4, 8, 10]
    assert [e.step for e in done.summary.evaluations] == [4, 8, 10]
    # a last step that is a multiple of K is called back once
    seen.clear()
    finetune(
        loaded,
        REGRESSION,
        rows,
        [],
        settings=settings(steps=8, checkpoint_every=4),
        work_dir=tmp_path / "b",
        on_checkpoint=on_checkpoint,
    )
    assert [s for s, _, _ in seen] == [4, 8]
    # dev scored at the end only
    end_only = finetune(
        loaded,
        REGRESSION,
        rows,
        rows[:6],
        settings=settings(steps=8, checkpoint_every=4, dev_at_checkpoints=False),
        work_dir=tmp_path / "c",
    )
    assert [e.step for e in end_only.summary.evaluations] == [8]
    assert end_only.summary.checkpoint_steps == [4, 8]


@pytest.mark.parametrize("name", ["bert", "llama"])
def test_resume_equals_uninterrupted(tiny_dirs: dict[str, Path], tmp_path: Path, name: str) -> None:
    rows = learnable_rows()
    dev = rows[:8]
    spec = settings(steps=12, checkpoint_every=4, warmup=0.25)
    calls: list[int] = []

    def record(step: int, model: Any) -> None:
        calls.append(step)

    whole = finetune(
        load_tiny(tiny_dirs, name),
        REGRESSION,
        rows,
        dev,
        settings=spec,
        work_dir=tmp_path / "whole",
    )
    work = tmp_path / "resumed"
    with pytest.raises(TrainingInterrupted):
        finetune(
            load_tiny(tiny_dirs, name),
            REGRESSION,
            rows,
            dev,
            settings=spec,
            work_dir=work,
            on_checkpoint=record,
            stop_after=6,
        )
    assert checkpoint_dir(work).is_dir()
    assert calls == [4]
    resumed = finetune(
        load_tiny(tiny_dirs, name),
        REGRESSION,
        rows,
        dev,
        settings=spec,
        work_dir=work,
        on_checkpoint=record,
    )
    assert calls == [4, 8, 12]
    assert resumed.summary.resumed_from_step == 6
    a, b = whole.model.state_dict(), resumed.model.state_dict()
    assert set(a) == set(b)
    for key in a:
        assert torch.allclose(a[key], b[key], atol=1e-6, rtol=0), key
    assert resumed.summary.curve == whole.summary.curve
    assert resumed.summary.evaluations == whole.summary.evaluations
    assert resumed.summary.checkpoint_steps == [4, 8, 12]
    assert resumed.summary.tokens == whole.summary.tokens


def test_checkpoint_of_another_fine_tuning_is_refused(
    tiny_dirs: dict[str, Path], tmp_path: Path
) -> None:
    rows = learnable_rows()
    work = tmp_path / "work"
    with pytest.raises(TrainingInterrupted):
        finetune(
            load_tiny(tiny_dirs, "bert"),
            REGRESSION,
            rows,
            [],
            settings=settings(),
            work_dir=work,
            stop_after=2,
        )
    with pytest.raises(AuditUserError, match="delete the folder"):
        finetune(
            load_tiny(tiny_dirs, "bert"),
            REGRESSION,
            rows,
            [],
            settings=settings(learning_rate=5e-3),
            work_dir=work,
        )
    # K does not change the weights: the checkpoint is resumed with another K
    done = finetune(
        load_tiny(tiny_dirs, "bert"),
        REGRESSION,
        rows,
        [],
        settings=settings(checkpoint_every=5),
        work_dir=work,
    )
    assert done.summary.resumed_from_step == 2


def test_progress_and_caller_rng(tiny_dirs: dict[str, Path], tmp_path: Path) -> None:
    statuses: list[TrainingStatus] = []
    torch.manual_seed(1234)
    state = torch.get_rng_state()
    finetune(
        load_tiny(tiny_dirs, "gpt2"),
        REGRESSION,
        learnable_rows(),
        [],
        settings=settings(steps=5),
        work_dir=tmp_path / "w",
        progress=statuses.append,
    )
    assert torch.equal(torch.get_rng_state(), state)
    assert [s.step for s in statuses] == [1, 2, 3, 4, 5]
    assert all(s.total == 5 and np.isfinite(s.loss) and s.terms == {} for s in statuses)


def test_predictions_keep_order_and_ignore_batching(
    tiny_dirs: dict[str, Path], tmp_path: Path
) -> None:
    rows = learnable_rows()
    done = finetune(
        load_tiny(tiny_dirs, "llama"),
        REGRESSION,
        rows,
        [],
        settings=settings(steps=20),
        work_dir=tmp_path / "w",
    )
    pairs = [(r.sentence1, r.sentence2) for r in rows]
    whole = predict_similarity(done.model, pairs, batch_size=64)
    one_by_one = predict_similarity(done.model, pairs, batch_size=1)
    reversed_ = predict_similarity(done.model, pairs[::-1], batch_size=5)
    np.testing.assert_allclose(whole, one_by_one, atol=1e-5)
    np.testing.assert_allclose(whole, reversed_[::-1], atol=1e-5)
    assert predict_similarity(done.model, []).shape == (0,)
    pearson, spearman = evaluate_sts(done.model, rows)
    assert pearson is not None and spearman is not None


def test_bad_training_data_is_a_user_error(tiny_dirs: dict[str, Path], tmp_path: Path) -> None:
    loaded = load_tiny(tiny_dirs, "bert")
    with pytest.raises(AuditUserError, match="no training pair"):
        finetune(loaded, REGRESSION, [], [], settings=settings(), work_dir=tmp_path / "a")
    rows = [*learnable_rows(), sts_row(float("nan"), "a", "b")]
    with pytest.raises(AuditUserError, match="non-finite score"):
        finetune(loaded, REGRESSION, rows, [], settings=settings(), work_dir=tmp_path / "b")
    with pytest.raises(ValueError, match="seed"):
        finetune(
            loaded,
            REGRESSION,
            learnable_rows(),
            [],
            settings=FineTuneSettings(steps=2),
            work_dir=tmp_path / "c",
        )
