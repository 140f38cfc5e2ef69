"""Fingerprints: content-addressed, stable, sensitive to weights, cheap the second time."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file

from audit.models import hashing
from audit.models.fingerprint import fingerprint
from audit.models.resolve import resolve_model
from audit.models.resolved import ResolvedModel
from audit.spec.models import ModelSpec


def _resolve(path: Path, cache_dir: Path) -> ResolvedModel:
    spec = ModelSpec.model_validate({"id": "m", "source": {"path": str(path)}})
    return resolve_model(spec, cache_dir=cache_dir)


def test_stable_and_location_independent(
    tiny_models: dict[str, Path], tmp_path: Path, cache_dir: Path
) -> None:
    copy = shutil.copytree(tiny_models["gpt2"], tmp_path / "copy")
    first = fingerprint(_resolve(tiny_models["gpt2"], cache_dir))
    assert len(first) == 64 and int(first, 16) >= 0
    assert fingerprint(_resolve(tiny_models["gpt2"], cache_dir)) == first
    assert fingerprint(_resolve(copy, tmp_path / "other-cache")) == first


def test_models_differ(tiny_models: dict[str, Path], cache_dir: Path) -> None:
    prints = {fingerprint(_resolve(path, cache_dir)) for path in tiny_models.values()}
    assert len(prints) == len(tiny_models)


def test_changes_with_one_weight(
    tiny_models: dict[str, Path], tmp_path: Path, cache_dir: Path
) -> None:
    copy = shutil.copytree(tiny_models["bert"], tmp_path / "copy")
    before = fingerprint(_resolve(copy, cache_dir))
    weights = load_file(copy / "model.safetensors")
    name = sorted(weights)[0]
    weights[name] = weights[name].clone()
    weights[name].view(-1)[0] += torch.tensor(1e-3)
    save_file(weights, copy / "model.safetensors", metadata={"format": "pt"})
    assert fingerprint(_resolve(copy, cache_dir)) != before


def test_changes_with_tokenizer(
    tiny_models: dict[str, Path], tmp_path: Path, cache_dir: Path
) -> None:
    copy = shutil.copytree(tiny_models["bert"], tmp_path / "copy")
    before = fingerprint(_resolve(copy, cache_dir))
    config = copy / "tokenizer_config.json"
    config.write_text(config.read_text().replace('"do_lower_case": true', '"do_lower_case": false'))
    assert fingerprint(_resolve(copy, cache_dir)) != before


def test_file_hashes_are_cached_by_size_and_mtime(
    tiny_models: dict[str, Path], tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = shutil.copytree(tiny_models["llama"], tmp_path / "copy")
    hashed: list[Path] = []
    real = hashing.sha256_file

    def counting(path: Path) -> str:
        hashed.append(path)
        return real(path)

    monkeypatch.setattr(hashing, "sha256_file", counting)
    resolved = _resolve(copy, cache_dir)
    first = fingerprint(resolved)
    assert any(p.name == "model.safetensors" for p in hashed)
    hashed.clear()
    assert fingerprint(resolved) == first
    assert hashed == []
    (copy / "config.json").touch()  # new mtime, same content
    assert fingerprint(_resolve(copy, cache_dir)) == first
    assert [p.name for p in hashed] == ["config.json"]
