"""Dropout debiasing: attention dropout 0.15 and hidden dropout 0.2 while training, the
model's own architecture and values afterwards; ramped in for a model never trained with
dropout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
from torch import nn

from audit.errors import AuditUserError
from audit.training.dropout import dropout_applied
from audit.training.dropout_ramp import ramp_share, ramp_steps
from audit.variants.settings import TrainingSpec
from audit.variants.trainer import Objective, TrainingData, TrainingStatus, train_model
from tests.models.tiny import TINY_BUILDERS, TINY_CORPUS
from tests.variants.tiny_lm import load

DROPOUT = Objective(kind="lm", attention_dropout=0.15, hidden_dropout=0.2)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tiny")
    return {
        name: builder(root / name)
        for name, (_, builder) in TINY_BUILDERS.items()
        if name in ("bert", "albert", "gpt2", "llama")
    }


def _dropouts(model: nn.Module) -> dict[str, float]:
    return {n: m.p for n, m in model.named_modules() if isinstance(m, nn.Dropout)}


def _hooks(model: nn.Module) -> int:
    return sum(len(m._forward_hooks) for m in model.modules())


EXPECTED_ATTENTION = {
    "bert": "bert.encoder.layer.0.attention.self.dropout",
    "albert": "albert.encoder.albert_layer_groups.0.albert_layers.0.attention.attention_dropout",
    "gpt2": "transformer.h.0.attn.attn_dropout",
}


@pytest.mark.parametrize("name", ["bert", "albert", "gpt2"])
def test_dropout_modules_are_set_and_restored(tiny: dict[str, Path], name: str) -> None:
    model_type = "causal" if name == "gpt2" else "masked"
    model, _ = load(tiny[name], model_type)
    before, config = _dropouts(model), model.config.to_dict()
    with dropout_applied(model, attention=0.15, hidden=0.2) as changes:
        inside = _dropouts(model)
    assert EXPECTED_ATTENTION[name] in changes.attention_modules
    assert inside[EXPECTED_ATTENTION[name]] == 0.15
    hidden = set(changes.hidden_modules)
    assert hidden and all(inside[n] == 0.2 for n in hidden)
    assert set(changes.attention_modules) | hidden == set(before), "every dropout is one or other"
    assert not changes.hidden_hooks
    assert _dropouts(model) == before
    assert model.config.to_dict() == config


def test_llama_gets_attention_dropout_and_hidden_dropout_hooks(tiny: dict[str, Path]) -> None:
    model, _ = load(tiny["llama"], "causal")
    attentions = [m for m in model.modules() if type(m).__name__ == "LlamaAttention"]
    assert attentions and not _dropouts(model)
    config = model.config.to_dict()
    ids = torch.tensor([[1, 5, 6, 7, 8, 9]])
    with torch.no_grad():
        reference = model(ids).logits
        with dropout_applied(model, attention=0.15, hidden=0.2) as changes:
            assert all(m.attention_dropout == 0.15 for m in attentions)
            assert len(changes.attention_attributes) == len(attentions)
            assert len(changes.hidden_hooks) == 1 + 2 * model.config.num_hidden_layers
            assert _hooks(model) == len(changes.hidden_hooks)
            assert torch.allclose(model(ids).logits, reference), "eval mode: no dropout"
            model.train()
            torch.manual_seed(0)
            noisy = model(ids).logits
            model.eval()
        assert not torch.allclose(noisy, reference), "train mode: dropout"
    assert all(m.attention_dropout == 0.0 for m in attentions)
    assert _hooks(model) == 0
    assert model.config.to_dict() == config
    assert torch.allclose(model(ids).logits, reference)


def test_training_with_dropout_restores_the_model(tiny: dict[str, Path], tmp_path: Path) -> None:
    model, tokenizer = load(tiny["bert"], "masked")
    before = _dropouts(model)
    during: list[dict[str, float]] = []

    def progress(_status: TrainingStatus) -> None:
        during.append(_dropouts(model))
        assert model.training

    train_model(
        model,
        tokenizer,
        model_type="masked",
        objective=DROPOUT,
        data=TrainingData(sentences=tuple(TINY_CORPUS)),
        settings=TrainingSpec(steps=3, batch_size=4, seed=0),
        work_dir=tmp_path,
        device=torch.device("cpu"),
        progress=progress,
    )
    assert len(during) == 3
    assert during[0]["bert.encoder.layer.0.attention.self.dropout"] == 0.15
    assert during[0]["bert.encoder.layer.0.output.dropout"] == 0.2
    assert during[0]["bert.embeddings.dropout"] == 0.2
    assert _dropouts(model) == before and _hooks(model) == 0 and not model.training


def test_hooks_are_removed_when_training_fails(tiny: dict[str, Path], tmp_path: Path) -> None:
    model, tokenizer = load(tiny["llama"], "causal")

    def fail(_status: TrainingStatus) -> None:
        assert _hooks(model) > 0
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        train_model(
            model,
            tokenizer,
            model_type="causal",
            objective=DROPOUT,
            data=TrainingData(sentences=tuple(TINY_CORPUS)),
            settings=TrainingSpec(steps=3, batch_size=4, seed=0),
            work_dir=tmp_path,
            device=torch.device("cpu"),
            progress=fail,
        )
    assert _hooks(model) == 0 and not model.training
    assert all(
        m.attention_dropout == 0.0 for m in model.modules() if hasattr(m, "attention_dropout")
    )


def test_the_ramp_rises_linearly_over_half_the_steps() -> None:
    assert ramp_steps(8) == 4 and ramp_steps(1) == 1 and ramp_steps(60) == 30
    assert [ramp_share(s, 8) for s in range(8)] == [0.25, 0.5, 0.75, 1, 1, 1, 1, 1]
    assert ramp_share(0, 1) == 1.0


def _attention_rates(model: nn.Module) -> list[float]:
    return [
        float(m.attention_dropout) for m in model.modules() if type(m).__name__ == "LlamaAttention"
    ]


def test_a_model_never_trained_with_dropout_gets_it_ramped_in(
    tiny: dict[str, Path], tmp_path: Path
) -> None:
    llama, tokenizer = load(tiny["llama"], "causal")
    with dropout_applied(llama, attention=0.15, hidden=0.2) as changes:
        assert changes.from_zero, "Llama: attention_dropout 0 and no dropout module"
        changes.set_share(0.5)
        assert set(_attention_rates(llama)) == {0.075}
    bert, _ = load(tiny["bert"], "masked")
    with dropout_applied(bert, attention=0.15, hidden=0.2) as changes:
        assert not changes.from_zero, "BERT was trained with dropout 0.1"

    rates: list[float] = []
    hidden: list[torch.Tensor] = []
    ids = torch.tensor([[1, 5, 6, 7, 8, 9]])

    def progress(_status: TrainingStatus) -> None:
        rates.extend(set(_attention_rates(llama)))
        with torch.no_grad():  # what the hidden-dropout hooks drop at this share
            torch.manual_seed(0)
            embeddings = llama.get_input_embeddings()(ids)
            hidden.append((embeddings == 0).float().mean())

    train_model(
        llama,
        tokenizer,
        model_type="causal",
        objective=DROPOUT,
        data=TrainingData(sentences=tuple(TINY_CORPUS)),
        settings=TrainingSpec(steps=8, batch_size=4, seed=0),
        work_dir=tmp_path,
        device=torch.device("cpu"),
        progress=progress,
    )
    assert rates == pytest.approx([0.15 * r for r in (0.25, 0.5, 0.75, 1, 1, 1, 1, 1)])
    assert float(hidden[0]) < float(hidden[-1]), "the hidden dropout rises too"
    assert set(_attention_rates(llama)) == {0.0}


class _NoDropout(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.base_model = nn.Sequential(nn.Embedding(4, 2), nn.Linear(2, 2))

    def get_input_embeddings(self) -> Any:
        return self.base_model[0]


def test_an_unknown_architecture_is_a_user_error() -> None:
    model: Any = _NoDropout()
    with (
        pytest.raises(AuditUserError, match="no attention dropout found in _NoDropout"),
        dropout_applied(model, attention=0.15, hidden=None),
    ):
        pass
    with (
        pytest.raises(AuditUserError, match="no hidden dropout module"),
        dropout_applied(model, attention=None, hidden=0.2),
    ):
        pass
