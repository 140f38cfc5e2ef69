"""Local sources: a transformers directory or a GGUF file."""

from __future__ import annotations

from pathlib import Path

from audit.errors import ModelSourceError
from audit.models.resolved import ResolvedModel, resolved_directory, resolved_gguf
from audit.models.sources import GGUFSource, PathSource


def resolve_path(model_id: str, source: PathSource, *, cache_dir: Path) -> ResolvedModel:
    """A local directory holding config.json, weights and tokenizer files ('~' expanded)."""
    directory = Path(source.path).expanduser().resolve()
    if not directory.is_dir():
        raise ModelSourceError(
            f"model '{model_id}': path '{source.path}' is not a directory (resolved to "
            f"{directory}); expected a folder written by save_pretrained with config.json"
        )
    return resolved_directory(model_id, f"path:{directory}", directory, cache_dir)


def resolve_gguf_file(model_id: str, source: GGUFSource, *, cache_dir: Path) -> ResolvedModel:
    """A local .gguf file ('~' expanded)."""
    path = Path(source.gguf).expanduser().resolve()
    if path.is_dir():
        raise ModelSourceError(
            f"model '{model_id}': gguf '{source.gguf}' is a directory; expected the path of "
            "a .gguf file (use `path:` for a transformers directory)"
        )
    return resolved_gguf(model_id, f"gguf:{path}", path, cache_dir)
