"""LoRA training through peft (optional): adapters trained, merged into the weights, the
model left as its base architecture; a clear error when peft is missing."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import torch

from audit.errors import AuditUserError
from audit.training.lora import peft_available
from audit.variants.settings import LoraSpec, TrainingSpec
from audit.variants.trainer import Objective, TrainingData, TrainingInterrupted, train_model
from tests.variants.tiny_lm import CORPUS, load, save_probe_bert, save_probe_llama

CPU = torch.device("cpu")
needs_peft = pytest.mark.skipif(
    not peft_available(), reason="peft is not installed (optional: pip install peft)"
)


@pytest.fixture(scope="module")
def dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tiny")
    return {"masked": save_probe_bert(root / "bert"), "causal": save_probe_llama(root / "llama")}


def _settings(**extra: Any) -> TrainingSpec:
    return TrainingSpec(
        steps=6, learning_rate=5e-3, batch_size=4, seed=2, lora=LoraSpec(r=4, alpha=8), **extra
    )


def _run(model: Any, tokenizer: Any, model_type: str, work: Path, **kwargs: Any) -> Any:
    return train_model(
        model,
        tokenizer,
        model_type=model_type,  # type: ignore[arg-type]
        objective=Objective(kind="lm"),
        data=TrainingData(sentences=tuple(CORPUS)),
        device=CPU,
        work_dir=work,
        **{"settings": _settings(), **kwargs},
    )


@needs_peft
@pytest.mark.parametrize("model_type", ["masked", "causal"])
def test_lora_adapters_are_merged_into_the_base_model(
    dirs: dict[str, Path], tmp_path: Path, model_type: str
) -> None:
    model, tokenizer = load(dirs[model_type], model_type)
    base = {k: v.clone() for k, v in model.state_dict().items()}
    module_types = {type(m) for m in model.modules()}
    summary = _run(model, tokenizer, model_type, tmp_path)
    after = model.state_dict()
    assert after.keys() == base.keys(), "no adapter weights left behind"
    assert {type(m) for m in model.modules()} == module_types
    assert all(p.requires_grad for p in model.parameters())
    changed = [k for k in base if not torch.equal(base[k], after[k])]
    assert changed and all("proj" in k or "query" in k or "value" in k for k in changed)
    total = sum(p.numel() for p in model.parameters())
    assert summary.trainable_parameters is not None
    assert 0 < summary.trainable_parameters < total / 5


@needs_peft
def test_lora_training_resumes_exactly(dirs: dict[str, Path], tmp_path: Path) -> None:
    straight, tokenizer = load(dirs["masked"], "masked")
    _run(straight, tokenizer, "masked", tmp_path / "a")
    model, _ = load(dirs["masked"], "masked")
    base = {k: v.clone() for k, v in model.state_dict().items()}
    with pytest.raises(TrainingInterrupted):
        _run(model, tokenizer, "masked", tmp_path / "b", stop_after=3)
    for key, value in model.state_dict().items():
        assert torch.equal(value, base[key]), "an interrupted LoRA training leaves no merge"
    resumed, _ = load(dirs["masked"], "masked")
    summary = _run(resumed, tokenizer, "masked", tmp_path / "b")
    assert summary.resumed_from_step == 3
    for key, value in straight.state_dict().items():
        assert torch.allclose(value, resumed.state_dict()[key], atol=1e-6, rtol=0), key


def test_lora_without_peft_names_the_install_command(
    dirs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "peft", None)  # `import peft` now fails
    model, tokenizer = load(dirs["masked"], "masked")
    before = {k: v.clone() for k, v in model.state_dict().items()}
    with pytest.raises(AuditUserError, match=r"pip install peft"):
        _run(model, tokenizer, "masked", tmp_path)
    assert all(torch.equal(v, before[k]) for k, v in model.state_dict().items())


@needs_peft
def test_unknown_lora_targets_are_a_user_error(dirs: dict[str, Path], tmp_path: Path) -> None:
    model, tokenizer = load(dirs["masked"], "masked")
    settings = TrainingSpec(steps=2, seed=1, lora=LoraSpec(target_modules=["no_such_module"]))
    with pytest.raises(AuditUserError, match=r"training\.lora\.target_modules"):
        _run(model, tokenizer, "masked", tmp_path, settings=settings)
