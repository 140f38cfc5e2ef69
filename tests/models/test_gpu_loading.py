"""CUDA only (marker `gpu`, skipped without CUDA): float32 on the GPU equals the CPU,
reduced-dtype weights load on the GPU, a model spread over devices (`device_map`) scores
like the same model on one device, and bitsandbytes weights load when installed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from audit.models import load as load_module
from audit.models.load import load_model
from audit.models.loaded import LoadedModel
from audit.models.placement import is_spread, spread_over
from audit.scoring.base import ScoringCall
from audit.scoring.causal import LL_SCORER
from audit.scoring.masked.scorers import AULA_SCORER, PLL_SCORER
from audit.scoring.options import CausalOptions, MaskedOptions
from audit.spec.models import ModelSpec
from tests.models.tiny import TINY_CORPUS

pytestmark = pytest.mark.gpu

TEXTS = list(TINY_CORPUS)


def _spec(path: Path, **extra: object) -> ModelSpec:
    return ModelSpec.model_validate({"id": "tiny", "source": {"path": str(path)}, **extra})


def _scores(loaded: LoadedModel, *, attention: bool = False) -> np.ndarray:
    if loaded.model_type == "causal":
        out = LL_SCORER.score_sentences(loaded, TEXTS, ScoringCall(CausalOptions(), lambda _: None))
    else:
        scorer = AULA_SCORER if attention else PLL_SCORER
        out = scorer.score_sentences(loaded, TEXTS, ScoringCall(MaskedOptions(), lambda _: None))
    return np.array([s.score for s in out])


@pytest.mark.parametrize("name", ["llama", "gpt2", "bert", "roberta"])
def test_cuda_float32_equals_cpu(name: str, tiny_models: dict[str, Path], cache_dir: Path) -> None:
    cpu = load_model(_spec(tiny_models[name]), cache_dir=cache_dir, device="cpu")
    cuda = load_model(_spec(tiny_models[name]), cache_dir=cache_dir, device="cuda")
    assert cuda.device.type == "cuda"
    assert {p.device.type for p in cuda.model.parameters()} == {"cuda"}
    assert {p.dtype for p in cuda.model.parameters()} == {torch.float32}
    assert not torch.backends.cuda.matmul.allow_tf32
    np.testing.assert_allclose(_scores(cuda), _scores(cpu), rtol=0, atol=1e-4)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_reduced_dtype_on_cuda(dtype: str, tiny_models: dict[str, Path], cache_dir: Path) -> None:
    exact = load_model(_spec(tiny_models["llama"]), cache_dir=cache_dir, device="cuda")
    reduced = load_model(
        _spec(tiny_models["llama"], dtype=dtype), cache_dir=cache_dir, device="cuda"
    )
    assert {p.dtype for p in reduced.model.parameters()} == {getattr(torch, dtype)}
    assert {p.device.type for p in reduced.model.parameters()} == {"cuda"}
    assert reduced.autocast_dtype is None
    got = _scores(reduced)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, _scores(exact), rtol=0, atol=0.05)


def _split_map(kind: str) -> dict[str, Any]:
    """An explicit device map over two devices: the second GPU when there is one, else
    the CPU (offloaded, run by accelerate on the first GPU)."""
    second: Any = 1 if torch.cuda.device_count() > 1 else "cpu"
    if kind == "llama":
        return {
            "model.embed_tokens": 0,
            "model.rotary_emb": 0,
            "model.layers.0": 0,
            "model.layers.1": second,
            "model.norm": second,
            "lm_head": second,
        }
    # BERT's head shares the embedding matrix: both stay on the first device
    return {
        "bert.embeddings": 0,
        "bert.encoder.layer.0": 0,
        "bert.encoder.layer.1": second,
        "cls": 0,
    }


@pytest.mark.parametrize("name", ["llama", "bert"])
def test_spread_model_scores_like_one_device(
    name: str, tiny_models: dict[str, Path], cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one = load_model(_spec(tiny_models[name]), cache_dir=cache_dir, device="cuda")
    expected = _scores(one)
    expected_attention = _scores(one, attention=True) if name == "bert" else None
    monkeypatch.setattr(
        load_module,
        "placement_kwargs",
        lambda spec, device: {"device_map": _split_map(name), "low_cpu_mem_usage": True},
    )
    spread = load_model(
        _spec(tiny_models[name], device_map="auto"), cache_dir=cache_dir, device="cuda"
    )
    assert is_spread(spread.model) and len(spread_over(spread.model)) == 2
    assert spread.device == torch.device("cuda", 0)
    np.testing.assert_allclose(_scores(spread), expected, rtol=0, atol=1e-4)
    if expected_attention is not None:
        np.testing.assert_allclose(
            _scores(spread, attention=True), expected_attention, rtol=0, atol=1e-4
        )


def test_device_map_auto_on_cuda(tiny_models: dict[str, Path], cache_dir: Path) -> None:
    exact = load_model(_spec(tiny_models["llama"]), cache_dir=cache_dir, device="cuda")
    mapped = load_model(
        _spec(tiny_models["llama"], device_map="auto"), cache_dir=cache_dir, device="cuda"
    )
    assert mapped.device.type == "cuda"
    assert {p.device.type for p in mapped.model.parameters()} == {"cuda"}
    np.testing.assert_allclose(_scores(mapped), _scores(exact), rtol=0, atol=1e-4)


@pytest.mark.parametrize("bits", [4, 8])
def test_bitsandbytes_weights(bits: int, tiny_models: dict[str, Path], cache_dir: Path) -> None:
    pytest.importorskip("bitsandbytes")
    from audit.models.precision import model_precision

    spec = _spec(tiny_models["llama"], dtype="float16", quantization={"bits": bits})
    assert model_precision(spec, torch.device("cuda")) == (
        f"cuda/float16+{'nf4' if bits == 4 else 'int8'}"
    )
    exact = load_model(_spec(tiny_models["llama"]), cache_dir=cache_dir, device="cuda")
    quantised = load_model(spec, cache_dir=cache_dir, device="cuda")
    layer = quantised.model.model.layers[0].self_attn.q_proj
    assert type(layer).__name__ == ("Linear4bit" if bits == 4 else "Linear8bitLt")
    assert quantised.n_parameters == exact.n_parameters
    got = _scores(quantised)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, _scores(exact), rtol=0.1)
