"""Paths written in a spec: '~' expanded, relative ones read from the spec file's folder."""

from __future__ import annotations

from pathlib import Path


def resolve_spec_path(value: str, base_dir: Path) -> Path:
    """A path from the spec: '~' expanded, relative paths read from the spec's folder."""
    path = Path(value).expanduser()
    return path if path.is_absolute() else base_dir / path
