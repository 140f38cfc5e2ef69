"""Sending a local model's files to a worker that lacks them.

A model from a local folder or GGUF file (and every trained variant, which lives in the
run's cache) is defined by the files its fingerprint covers. The run reads them once and
puts them into Ray's object store; a worker that cannot find the same files at the same
path writes them into its own cache, `<worker cache>/ray-models/<fingerprint>/`, and
loads them from there. Models larger than `SHIP_LIMIT` are not sent: every node must then
see them at the same path (shared storage), or take them from the hub.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path, PurePosixPath

from audit.executor import ModelRequest
from audit.models.sources import GGUFSource, ModelSpec, PathSource

#: Local models up to this many bytes are sent to workers that lack them.
SHIP_LIMIT = 2 * 1024**3


def shipped_size(request: ModelRequest) -> int:
    return sum(path.stat().st_size for path in request.local_files)


def pack(request: ModelRequest) -> dict[str, bytes]:
    """The model's files by their name relative to its folder."""
    assert request.local_root is not None
    return {
        path.relative_to(request.local_root).as_posix(): path.read_bytes()
        for path in request.local_files
    }


def write_files(files: dict[str, bytes], folder: Path, *, refusing: str) -> None:
    """Write `files` (POSIX paths relative to `folder`) into `folder`. A name that is
    absolute or leads out with '..' is refused: "refusing to {refusing} {name!r}"."""
    for name, content in files.items():
        relative = PurePosixPath(name)
        if relative.is_absolute() or ".." in relative.parts:
            raise ValueError(f"refusing to {refusing} {name!r}")
        target = folder.joinpath(*relative.parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)


def unpack(files: dict[str, bytes], folder: Path) -> None:
    """Write `files` into `folder` (atomically: a folder already there is kept, since the
    fingerprint check that follows decides whether it holds the right files)."""
    if folder.is_dir():
        return
    partial = folder.with_name(f"{folder.name}.partial-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    write_files(files, partial, refusing="write shipped model file")
    try:
        os.replace(partial, folder)
    except OSError:  # another task on this node wrote it first
        shutil.rmtree(partial, ignore_errors=True)


def shipped_spec(spec: ModelSpec, folder: Path) -> ModelSpec:
    """`spec` with its local source moved to `folder`, where the shipped files are."""
    source = spec.source
    if isinstance(source, GGUFSource):
        moved: PathSource | GGUFSource = GGUFSource(gguf=str(folder / Path(source.gguf).name))
    elif isinstance(source, PathSource):
        moved = PathSource(path=str(folder))
    else:
        raise TypeError(f"only local models are shipped, not {type(source).__name__}")
    return spec.model_copy(update={"source": moved})


def clear(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
