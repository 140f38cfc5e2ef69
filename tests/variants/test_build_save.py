"""Saving a trained variant: a model read from GGUF (transformers marks it quantized
although its weights are float32) is saved as a plain float32 model, and the marker is
put back afterwards."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from audit.models.loaded import LoadedModel
from audit.variants.build import save_variant
from tests.models.tiny import save_tiny_llama


class GgufMarker:
    """Stands in for transformers' GGUF quantizer: not serializable, method 'gguf'."""

    quantization_config = SimpleNamespace(quant_method="gguf")

    def is_serializable(self) -> bool:
        return False


def _loaded(folder: Path) -> LoadedModel:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(folder)
    return LoadedModel(
        model_id="tiny",
        model_type="causal",
        model=model,
        tokenizer=AutoTokenizer.from_pretrained(folder),
        device=torch.device("cpu"),
        autocast_dtype=None,
        fingerprint="x",
    )


def test_a_gguf_marked_model_is_saved_as_plain_float32(tmp_path: Path) -> None:
    loaded = _loaded(save_tiny_llama(tmp_path / "base"))
    marker = GgufMarker()
    loaded.model.hf_quantizer = marker  # type: ignore[assignment]
    loaded.model.config.quantization_config = {"quant_method": "gguf"}
    with pytest.raises(ValueError, match="gguf"):  # what save_pretrained does on its own
        loaded.model.save_pretrained(tmp_path / "plain")
    save_variant(loaded, tmp_path / "saved")
    assert loaded.model.hf_quantizer is marker  # put back
    assert loaded.model.config.quantization_config == {"quant_method": "gguf"}
    again = _loaded(tmp_path / "saved")
    assert not hasattr(again.model.config, "quantization_config")
    ids = torch.tensor([[1, 5, 6, 7]])
    with torch.no_grad():
        same = torch.equal(loaded.model(ids).logits, again.model(ids).logits)
    assert same
