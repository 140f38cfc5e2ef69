"""Local directory and GGUF file sources."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from audit.errors import ModelSourceError
from audit.models.resolve import resolve_model
from audit.spec.models import ModelSpec


def _spec(**source: object) -> ModelSpec:
    return ModelSpec.model_validate({"id": "tiny", "source": source})


def test_directory_files_by_role(tiny_models: dict[str, Path], cache_dir: Path) -> None:
    resolved = resolve_model(_spec(path=str(tiny_models["bert"])), cache_dir=cache_dir)
    names = {role: [p.name for p in paths] for role, paths in resolved.files.items()}
    assert names["config"] == ["config.json"]
    assert names["weights"] == ["model.safetensors"]
    assert "tokenizer.json" in names["tokenizer"]
    assert resolved.has_safetensors and not resolved.is_gguf
    assert resolved.source == f"path:{tiny_models['bert'].resolve()}"


def test_home_is_expanded(
    tiny_models: dict[str, Path], tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    shutil.copytree(tiny_models["gpt2"], tmp_path / "models" / "gpt2")
    resolved = resolve_model(_spec(path="~/models/gpt2"), cache_dir=cache_dir)
    assert resolved.directory == (tmp_path / "models" / "gpt2").resolve()


def test_missing_directory(cache_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ModelSourceError, match=r"model 'tiny': path '.*nowhere' is not a dir"):
        resolve_model(_spec(path=str(tmp_path / "nowhere")), cache_dir=cache_dir)


def test_directory_without_config(cache_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelSourceError, match=r"has no config\.json"):
        resolve_model(_spec(path=str(tmp_path / "empty")), cache_dir=cache_dir)


def test_directory_without_weights(cache_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text("{}")
    with pytest.raises(ModelSourceError, match=r"no weights .*\*\.safetensors"):
        resolve_model(_spec(path=str(tmp_path / "m")), cache_dir=cache_dir)


def test_bin_weights_only_when_no_safetensors(cache_dir: Path, tmp_path: Path) -> None:
    model = tmp_path / "m"
    model.mkdir()
    (model / "config.json").write_text("{}")
    (model / "pytorch_model.bin").write_bytes(b"bin")
    resolved = resolve_model(_spec(path=str(model)), cache_dir=cache_dir)
    assert [p.name for p in resolved.files["weights"]] == ["pytorch_model.bin"]
    assert not resolved.has_safetensors
    (model / "model.safetensors").write_bytes(b"st")
    resolved = resolve_model(_spec(path=str(model)), cache_dir=cache_dir)
    assert [p.name for p in resolved.files["weights"]] == ["model.safetensors"]


def test_gguf_file(cache_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "m.gguf").write_bytes(b"GGUF")
    resolved = resolve_model(_spec(gguf=str(tmp_path / "m.gguf")), cache_dir=cache_dir)
    assert resolved.gguf_file == "m.gguf" and resolved.directory == tmp_path.resolve()


def test_missing_gguf_file(cache_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ModelSourceError, match=r"GGUF file .*x\.gguf does not exist"):
        resolve_model(_spec(gguf=str(tmp_path / "x.gguf")), cache_dir=cache_dir)


def test_gguf_pointing_at_directory(cache_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ModelSourceError, match="is a directory"):
        resolve_model(_spec(gguf=str(tmp_path)), cache_dir=cache_dir)
