"""The dequantised copy of a GGUF model in the cache, on a tiny Q8_0 GGUF file: written
on the first load, read (without touching the GGUF file) on the next, bit-identical to
loading the GGUF file directly, keyed by fingerprint and dtype, rewritten when damaged."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch

from audit.models import load as load_module
from audit.models.fingerprint import fingerprint
from audit.models.gguf_cache import entry_folder, read_entry
from audit.models.load import load_model, load_tokenizer, load_weights
from audit.models.resolve import resolve_model
from audit.spec.models import ModelSpec
from tests.models.tiny import TINY_CORPUS
from tests.models.tiny_gguf import save_tiny_gguf

TEXTS = [*TINY_CORPUS[:4], "Zebras quietly juggle 42 unseen words!"]


@pytest.fixture(scope="module")
def tiny_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_gguf(tmp_path_factory.mktemp("tiny-gguf"))


def _spec(path: Path, **extra: object) -> ModelSpec:
    return ModelSpec.model_validate({"id": "g", "source": {"gguf": str(path)}, **extra})


def _logits(model: Any, tokenizer: Any) -> torch.Tensor:
    batch = tokenizer(TEXTS, return_tensors="pt", padding=True)
    with torch.no_grad():
        return model(**batch).logits.float()


class _GGUFReads:
    """Wraps load_weights and counts the calls that read a GGUF file."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        original = load_module.load_weights

        def spy(resolved: Any, *args: Any, **kwargs: Any) -> Any:
            self.count += resolved.is_gguf
            return original(resolved, *args, **kwargs)

        monkeypatch.setattr(load_module, "load_weights", spy)


def test_second_load_reads_the_cache_and_equals_the_gguf(
    tiny_gguf: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = _spec(tiny_gguf)
    resolved = resolve_model(spec, cache_dir=cache_dir)
    direct_tokenizer = load_tokenizer(resolved, spec)
    direct = _logits(load_weights(resolved, spec, "causal").eval(), direct_tokenizer)
    reads = _GGUFReads(monkeypatch)

    first = load_model(spec, cache_dir=cache_dir, device="cpu")
    assert reads.count == 1
    folder = read_entry(cache_dir, fingerprint(resolved), "float32")
    assert folder is not None and any(folder.glob("*.safetensors"))
    second = load_model(spec, cache_dir=cache_dir, device="cpu")
    assert reads.count == 1, "the second load must not dequantise the GGUF file again"

    for loaded in (first, second):
        assert loaded.fingerprint == fingerprint(resolved)  # the GGUF file's, not the copy's
        assert loaded.source.startswith("gguf:")
        assert loaded.model_type == "causal"
        assert torch.equal(_logits(loaded.model, loaded.tokenizer), direct)
        assert {p.dtype for p in loaded.model.parameters()} == {torch.float32}
        for text in TEXTS:
            assert loaded.tokenizer(text)["input_ids"] == direct_tokenizer(text)["input_ids"]
        assert loaded.tokenizer.bos_token_id == direct_tokenizer.bos_token_id
        assert loaded.tokenizer.eos_token_id == direct_tokenizer.eos_token_id
        assert loaded.tokenizer.pad_token_id == direct_tokenizer.pad_token_id


def test_entries_are_keyed_by_dtype(tiny_gguf: Path, cache_dir: Path) -> None:
    spec = _spec(tiny_gguf, dtype="bfloat16")
    loaded = load_model(spec, cache_dir=cache_dir, device="cpu")
    assert {p.dtype for p in loaded.model.parameters()} == {torch.bfloat16}
    resolved = resolve_model(spec, cache_dir=cache_dir)
    bf16 = entry_folder(cache_dir, fingerprint(resolved), "bfloat16")
    assert bf16.is_dir()
    assert bf16 != entry_folder(cache_dir, fingerprint(resolved), "float32")
    assert not entry_folder(cache_dir, fingerprint(resolved), "float32").exists()
    direct = load_weights(resolved, spec, "causal", dtype=torch.bfloat16).eval()
    tokenizer = load_tokenizer(resolved, spec)
    assert torch.equal(_logits(loaded.model, loaded.tokenizer), _logits(direct, tokenizer))


def test_a_damaged_entry_is_written_again(
    tiny_gguf: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = _spec(tiny_gguf)
    reference = load_model(spec, cache_dir=cache_dir, device="cpu")
    expected = _logits(reference.model, reference.tokenizer)
    resolved = resolve_model(spec, cache_dir=cache_dir)
    folder = read_entry(cache_dir, fingerprint(resolved), "float32")
    assert folder is not None
    # a damaged copy (written anew: the loaded model may still map the old file's pages)
    weights = next(folder.glob("*.safetensors"))
    damaged = weights.read_bytes()[:100]
    weights.unlink()
    weights.write_bytes(damaged)
    assert read_entry(cache_dir, fingerprint(resolved), "float32") is None
    assert not folder.exists()
    reads = _GGUFReads(monkeypatch)
    again = load_model(spec, cache_dir=cache_dir, device="cpu")
    assert reads.count == 1
    assert torch.equal(_logits(again.model, again.tokenizer), expected)


def test_no_partial_entry_is_left_behind(tiny_gguf: Path, cache_dir: Path) -> None:
    load_model(_spec(tiny_gguf), cache_dir=cache_dir, device="cpu")
    names = [p.name for p in (cache_dir / "dequantised").iterdir()]
    assert len(names) == 1 and not names[0].startswith(".")
