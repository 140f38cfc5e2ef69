"""Hub ids: the real snapshot machinery (offline here) and its error message."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from huggingface_hub.errors import LocalEntryNotFoundError

from audit.errors import ModelSourceError
from audit.models import hub
from audit.models.resolve import resolve_model
from audit.spec.models import ModelSpec

SPEC = ModelSpec.model_validate(
    {"id": "bert", "source": {"hf": "bert-base-uncased", "revision": "v1.0"}}
)


def test_network_failure_is_a_clear_error(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def offline(repo_id: str, revision: str, allow_patterns: list[str]) -> str:
        raise LocalEntryNotFoundError("Name or service not known")

    monkeypatch.setattr(hub, "_snapshot_download", offline)
    with pytest.raises(ModelSourceError) as info:
        resolve_model(SPEC, cache_dir=cache_dir)
    message = str(info.value)
    assert "model 'bert'" in message and "'bert-base-uncased'" in message and "'v1.0'" in message
    assert "path:" in message and "HF_HUB_OFFLINE" in message


def test_offline_mode_with_empty_hf_cache_fails_cleanly(
    cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real huggingface_hub call, kept off the network by HF_HUB_OFFLINE."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_OFFLINE", True)
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_CACHE", str(tmp_path / "hf" / "hub"))
    with pytest.raises(ModelSourceError, match="HF_HUB_OFFLINE"):
        resolve_model(SPEC, cache_dir=cache_dir)


def test_snapshot_with_safetensors_needs_one_call(
    tiny_models: dict[str, Path], cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[str, str, list[str]]] = []

    def snapshot(repo_id: str, revision: str, allow_patterns: list[str]) -> str:
        calls.append((repo_id, revision, allow_patterns))
        return str(tiny_models["bert"])

    monkeypatch.setattr(hub, "_snapshot_download", snapshot)
    resolved = resolve_model(SPEC, cache_dir=cache_dir)
    assert [c[:2] for c in calls] == [("bert-base-uncased", "v1.0")]
    assert "*.safetensors" in calls[0][2] and "pytorch_model*.bin" not in calls[0][2]
    assert resolved.source == "hf:bert-base-uncased@v1.0"
    assert resolved.has_safetensors


def test_snapshot_without_safetensors_fetches_bin(
    tiny_models: dict[str, Path], tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snap = tmp_path / "snapshots" / "abc123"
    shutil.copytree(tiny_models["bert"], snap, ignore=shutil.ignore_patterns("*.safetensors"))
    calls: list[list[str]] = []

    def snapshot(repo_id: str, revision: str, allow_patterns: list[str]) -> str:
        calls.append(allow_patterns)
        if "pytorch_model*.bin" in allow_patterns:
            (snap / "pytorch_model.bin").write_bytes(b"weights")
        return str(snap)

    monkeypatch.setattr(hub, "_snapshot_download", snapshot)
    resolved = resolve_model(SPEC, cache_dir=cache_dir)
    assert len(calls) == 2
    assert [p.name for p in resolved.files["weights"]] == ["pytorch_model.bin"]
    assert resolved.revision == "abc123"
