"""The Ray executor: the run's work as Ray tasks, the caches and results written here.

Scoring: one streaming task per model that has scores missing (the model loads once per
task). The run looks the units up in its score cache first and sends only the missing
entries; the task yields each chunk of scores as soon as it is computed, and the run
writes each chunk into the cache when it arrives. A run stopped here (Ctrl-C, a crash)
keeps every chunk that arrived and computes only the rest when started again; a worker
that dies is replaced by Ray (`max_retries`), and the task's chunks that had already
arrived are not sent twice. A model whose scores are all cached starts no task at all.

Training: one task per variant job not in the variant cache. The task returns the trained
model folder's files, which the run stores in its variant cache as an in-process training
would.

A user error on a worker (a model that cannot load) is raised here as the same error, so
`audit run` prints the same message and exits 2. Ray is imported when the executor is
made; without it that is a `MissingExtraError` naming the extra to install.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import audit.cluster.messages as messages
from audit import __version__
from audit.cluster.shipping import SHIP_LIMIT, pack, shipped_size, write_files
from audit.cluster.worker import score_group, train_variant
from audit.display import format_duration
from audit.errors import AuditUserError
from audit.executor import ModelRequest, ModelWork, Worker, unit_record
from audit.models.device import cpu_threads
from audit.results import UnitRecord
from audit.scoring import runner
from audit.scoring.cache import ModelIdentity, ScoreNamespace
from audit.scoring.cache_write_errors import cache_writes
from audit.scoring.runner import (
    UnitWork,
    open_namespace,
    unit_label,
    unit_work,
    warn_repairs,
)

if TYPE_CHECKING:
    from audit.variants.cache import StoredVariant
    from audit.variants.jobs import VariantJob

RAY_EXTRA = "pip install 'bias-audit[ray]'"


def require_ray() -> ModuleType:
    """The `ray` module, or a clear error naming the extra that installs it."""
    try:
        import ray
    except ImportError as error:
        raise messages.MissingExtraError(
            f"the Ray executor (`--executor ray`, or `execution: {{executor: ray}}` in the "
            f"spec) needs Ray, which is not installed here: {RAY_EXTRA}"
        ) from error
    return ray


class RayConnectionError(AuditUserError):
    """The Ray cluster named by `address` cannot be joined."""


@dataclass(frozen=True)
class RaySettings:
    """Which cluster, and what each task asks of it (see `ExecutionSpec`)."""

    address: str | None = None
    cpus_per_task: float = 1
    gpus_per_task: float = 1
    max_retries: int = 3


@dataclass
class _Unit:
    """A unit of a model sent to Ray: where its scores go, and what has arrived."""

    work: UnitWork
    namespace: ScoreNamespace
    sizes: dict[str, int]  # sentences per missing entry, for the progress counts
    received: int = 0
    seconds: float = 0.0

    @property
    def key(self) -> str:
        unit = self.work.unit
        return f"{unit.model}/{unit.dataset}/{unit.scorer.label}"


@dataclass
class _Group:
    """One model's units: looked up in the cache here, the missing ones sent to a task."""

    model: str
    request: ModelRequest
    units: list[_Unit]
    started: float = field(default_factory=time.monotonic)

    @property
    def sent(self) -> list[_Unit]:
        return [u for u in self.units if u.work.missing]

    def records(self) -> list[UnitRecord]:
        return [unit_record(u.work.outcome(u.seconds)) for u in self.units]

    def close(self) -> None:
        for unit in self.units:
            unit.namespace.close()


class RayExecutor:
    """Runs scoring and training as Ray tasks (see the module docstring)."""

    def __init__(self, settings: RaySettings | None = None) -> None:
        self.settings = settings or RaySettings()
        self._ray = require_ray()
        self._shipped: dict[str, messages.ShippedModel | None] = {}
        self._score: Any = None
        self._train: Any = None

    # ------------------------------------------------------------------ scoring

    def run(self, work: Sequence[ModelWork], worker: Worker) -> list[UnitRecord]:
        """Score every group on the cluster, except a served model's: its endpoint does
        the work, so its requests go out from this process (`worker`)."""
        groups: list[_Group] = []
        here: dict[int, list[UnitRecord]] = {}
        try:
            for index, group in enumerate(work):
                if worker.model_request(group.model).served:
                    here[index] = worker(group)
                else:
                    groups.append(self._look_up(group, worker))
            todo = [g for g in groups if g.sent]
            if todo:
                self._score_remotely(todo, worker)
            remote = iter(groups)
            return [
                record
                for index in range(len(work))
                for record in (here[index] if index in here else next(remote).records())
            ]
        finally:
            for g in groups:
                g.close()

    def _look_up(self, group: ModelWork, worker: Worker) -> _Group:
        """The group's units with what the cache already holds (read here, as in-process)."""
        request = worker.model_request(group.model)
        assert request.precision is not None
        identity = ModelIdentity(request.fingerprint, request.precision, request.chat)
        if request.dataset_chats is not None:
            identity = replace(identity, dataset_chats=request.dataset_chats)
        out = _Group(group.model, request, [])
        for unit in group.units:
            started = time.monotonic()
            namespace = open_namespace(unit.scorer, worker.cache, identity)
            try:
                found = unit_work(
                    unit,
                    dataset=worker.dataset(unit.dataset),
                    namespace=namespace,
                    chat=identity.chat_for(unit.dataset),
                )
            except BaseException:
                namespace.close()
                raise
            warn_repairs(found, worker.display)
            sizes = {j.key: found.work([j]) for j in found.missing}
            out.units.append(_Unit(found, namespace, sizes, seconds=time.monotonic() - started))
        return out

    def _score_remotely(self, groups: list[_Group], worker: Worker) -> None:
        ray = self._connect()
        if self._score is None:
            self._score = ray.remote(score_group)
        streams: dict[Any, _Group] = {}
        try:
            for group in groups:
                request = messages.ScoreRequest(
                    tool_version=__version__,
                    model=group.request,
                    shipped=self._ship(group.request),
                    units=[
                        messages.UnitRequest(u.work.unit.scorer, u.work.missing) for u in group.sent
                    ],
                    chunk=runner.CHUNK,
                )
                options = {"num_returns": "streaming", **self._resources(group.request)}
                group.started = time.monotonic()
                streams[self._score.options(**options).remote(request)] = group
            while streams:
                ready, _ = ray.wait(list(streams), num_returns=1)
                stream = ready[0]
                message = self._next(stream)
                if message is None:
                    del streams[stream]
                else:
                    self._receive(streams[stream], message, worker)
        finally:
            self._cancel(streams)

    def _receive(self, group: _Group, message: object, worker: Worker) -> None:
        display = worker.display
        if isinstance(message, messages.ModelLoaded):
            worker.model_loaded(group.model, message.n_parameters)
            display.info(
                f"{group.model}: loaded on {message.node} ({message.device}) "
                f"in {message.seconds:.1f} s"
            )
            return
        assert isinstance(message, messages.ScoredChunk)
        unit = group.sent[message.unit]
        with cache_writes(unit.namespace.db_path):
            unit.namespace.put_many(message.entries)  # written before anything else happens
        if unit.received == 0:
            display.start(unit.key, unit_label(unit.work.unit), sum(unit.sizes.values()))
        unit.received += len(message.entries)
        display.advance(unit.key, sum(unit.sizes[k] for k in message.entries))
        if unit.received >= len(unit.work.missing):
            display.finish(unit.key)
            unit.seconds += time.monotonic() - group.started

    # ----------------------------------------------------------------- training

    def train(self, jobs: Sequence[VariantJob], worker: Worker) -> dict[str, StoredVariant]:
        stored: dict[str, StoredVariant] = {}
        todo = []
        for job in jobs:
            if job.cached:
                stored[job.model_id] = job.store.read()
            else:
                todo.append(job)
        if not todo:
            return stored
        ray = self._connect()
        if self._train is None:
            self._train = ray.remote(train_variant)
        occupations = worker.probe_occupations()
        pending: dict[Any, VariantJob] = {}
        try:
            for job in todo:
                base = worker.model_request(job.base, training=True)
                request = messages.TrainRequest(
                    __version__, job, base, self._ship(base), occupations
                )
                pending[self._train.options(**self._resources(base)).remote(request)] = job
                worker.display.step(
                    _train_key(job),
                    f"training {job.model_id} ({job.method.name} of {job.base}) on Ray",
                )
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=1)
                job = pending.pop(ready[0])
                trained = self._get(ready[0])
                stored[job.model_id] = self._store(job, trained, worker)
        finally:
            self._cancel(pending)
        return stored

    def _store(
        self, job: VariantJob, trained: messages.TrainedVariant, worker: Worker
    ) -> StoredVariant:
        """The trained variant into this run's variant cache, as an in-process training
        stores it (model folder, then variant.json, then the measured speed)."""
        from audit.variants.jobs import remember_speed, speed_key

        staging = job.store.staging_dir()
        write_files(trained.files, staging, refusing="store trained model file")
        summary = trained.summary
        done = job.store.commit(
            staging, description=job.describe(), summary=summary, probe=trained.probe
        )
        if summary.steps > (summary.resumed_from_step or 0):
            base_fingerprint = worker.model_request(job.base).fingerprint
            remember_speed(
                _cache_dir(job.store.root),
                speed_key(job, base_fingerprint, trained.device),
                summary.seconds / summary.steps,
            )
        worker.model_loaded(job.base, trained.n_parameters)
        worker.display.end_step(
            _train_key(job),
            f"{job.model_id}: trained {summary.steps} steps in "
            f"{format_duration(summary.seconds)} on {trained.node}",
        )
        return done

    # ------------------------------------------------------------------- common

    def _connect(self) -> ModuleType:
        """Ray, connected: to the cluster this process already joined, else to
        `address` (None: $RAY_ADDRESS, else a new local Ray)."""
        ray = self._ray
        if not ray.is_initialized():
            try:
                ray.init(
                    address=self.settings.address,
                    log_to_driver=False,
                    logging_level=logging.WARNING,
                )
            except (ConnectionError, ValueError) as error:
                where = self.settings.address or "$RAY_ADDRESS (or a new local Ray)"
                raise RayConnectionError(
                    f"cannot join the Ray cluster at {where}: {error}"
                ) from error
        return ray

    def _resources(self, request: ModelRequest) -> dict[str, Any]:
        """What each task asks for: GPUs when the model runs on CUDA, CPUs always."""
        cuda = request.device.startswith("cuda")
        return {
            "num_cpus": self.settings.cpus_per_task,
            "num_gpus": self.settings.gpus_per_task if cuda else 0,
            "max_retries": self.settings.max_retries,
            # torch's CPU threads as in this process, not Ray's OMP_NUM_THREADS = num_cpus:
            # a float sum split over another number of threads rounds differently, and a
            # variant trained on Ray must be the one trained in process
            "runtime_env": {"env_vars": {"OMP_NUM_THREADS": str(cpu_threads())}},
        }

    def _ship(self, request: ModelRequest) -> messages.ShippedModel | None:
        """A local model's files in Ray's object store, once per run (None: not local,
        or larger than `SHIP_LIMIT`)."""
        if request.local_root is None:
            return None
        if request.fingerprint not in self._shipped:
            size = shipped_size(request)
            shipped = None
            if size <= SHIP_LIMIT:
                shipped = messages.ShippedModel([self._ray.put(pack(request))], size)
            self._shipped[request.fingerprint] = shipped
        return self._shipped[request.fingerprint]

    def _next(self, stream: Any) -> object | None:
        """The next message of a streaming task (None when it is done)."""
        with self._worker_errors():
            try:
                ref = next(stream)
            except StopIteration:
                return None
            return self._ray.get(ref)

    def _get(self, ref: Any) -> Any:
        with self._worker_errors():
            return self._ray.get(ref)

    @contextmanager
    def _worker_errors(self) -> Iterator[None]:
        """A user error raised on a worker is raised here as itself (same message, same
        exit code); any other failure keeps Ray's error, with the worker's traceback."""
        try:
            yield
        except self._ray.exceptions.RayTaskError as error:
            cause = getattr(error, "cause", None)
            if isinstance(cause, AuditUserError):
                raise cause from None
            raise

    def _cancel(self, tasks: dict[Any, Any]) -> None:
        """Stop the tasks still running (the run failed or was interrupted)."""
        for task in tasks:
            try:
                self._ray.cancel(task, force=True)
            except Exception:  # a task that ended meanwhile, a lost connection
                continue


def _train_key(job: VariantJob) -> str:
    return f"train {job.model_id}"


def _cache_dir(variant_root: Path) -> Path:
    """The cache folder of a variant's folder (`<cache>/variants/<key>`)."""
    return variant_root.parent.parent
