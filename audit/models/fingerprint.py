"""A model fingerprint: sha256 over the content of the files that define its outputs."""

from __future__ import annotations

import hashlib
from pathlib import Path

from audit.models.hashing import FileHashCache
from audit.models.resolved import ResolvedModel


def fingerprint(resolved: ResolvedModel, *, cache_dir: Path | None = None) -> str:
    """Hex sha256 over config, weight, tokenizer (and remote-code) files of a model.

    Each file contributes its role, its name relative to the model directory (for a GGUF
    file only the role: renaming it keeps the fingerprint) and its content sha256. Per-file
    hashes are remembered in `cache_dir` (default: the resolve cache folder), keyed by
    path + size + mtime, so fingerprinting an unchanged model again reads no weights.
    """
    hashes = FileHashCache(cache_dir if cache_dir is not None else resolved.cache_dir)
    lines: list[str] = []
    for role in sorted(resolved.files):
        for path in resolved.files[role]:
            name = "" if role == "gguf" else _relative_name(path, resolved.directory)
            lines.append(f"{role}\t{name}\t{hashes.sha256(path)}\n")
    digest = hashlib.sha256()
    for line in sorted(lines):
        digest.update(line.encode("utf-8"))
    return digest.hexdigest()


def _relative_name(path: Path, directory: Path) -> str:
    try:
        return path.relative_to(directory).as_posix()
    except ValueError:
        return path.name
