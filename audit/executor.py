"""Executors run the plan's work: the scoring units grouped by model, so that each model
is loaded once, and the variant training jobs. The run's side of that work is a `Worker`
(`audit.pipeline.worker.RunWorker`): it does a piece of work in this process, and
describes it as plain data (`ModelRequest`, the units' datasets) for an executor that
does it elsewhere.
`InProcessExecutor` runs everything here, one model after another; `audit.cluster` runs
it as Ray tasks, and the run (never a worker elsewhere) writes the caches and results."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from audit.results import UnitRecord
from audit.scoring.units import ScoreUnit, UnitOutcome

if TYPE_CHECKING:
    from audit.data.items import LoadedDataset
    from audit.display import Display
    from audit.models.chat_template import ChatFormat, DatasetChats
    from audit.models.sources import ModelSpec
    from audit.scoring.cache import ScoreCache
    from audit.variants.cache import StoredVariant
    from audit.variants.jobs import VariantJob


@dataclass(frozen=True)
class ModelWork:
    """All units of one model."""

    model: str
    units: tuple[ScoreUnit, ...]


@dataclass(frozen=True)
class ModelRequest:
    """A prepared model as another machine needs it: its spec (local paths absolute), the
    fingerprint and precision this run planned with (that machine must find the same;
    precision None for a base loaded for training, in float32), the device, and for a
    local source (a folder, a GGUF file, a trained variant) the folder and the files that
    define it, to send when that machine does not have them."""

    spec: ModelSpec
    fingerprint: str
    precision: str | None
    device: str
    local_root: Path | None = None
    local_files: tuple[Path, ...] = ()
    served: bool = False  # behind an endpoint: scored from the run's process, not shipped
    chat: ChatFormat | None = None  # the chat template of its multiple-choice prompts
    dataset_chats: DatasetChats | None = None  # datasets' own templates (they win there)


class Worker(Protocol):
    """The run's side of the work: scoring and training here, and what an executor that
    runs them elsewhere needs to know (it writes scores to `cache` itself)."""

    cache: ScoreCache
    display: Display

    def __call__(self, work: ModelWork) -> list[UnitRecord]:
        """Score one model's units in this process (the model loads if a score is missing)."""
        ...

    def train(self, jobs: Sequence[VariantJob]) -> dict[str, StoredVariant]:
        """Train the jobs not in the variant cache, in this process; every job's variant."""
        ...

    def model_request(self, model_id: str, *, training: bool = False) -> ModelRequest:
        """The model as a worker elsewhere loads it (`training`: as a base to train)."""
        ...

    def dataset(self, name: str) -> LoadedDataset: ...

    def probe_occupations(self) -> list[str] | None:
        """The occupations of the variants' he/she probe (None: no probe)."""
        ...

    def model_loaded(self, model_id: str, n_parameters: int) -> None:
        """Record what loading a model elsewhere found out (its parameter count)."""
        ...


class Executor(Protocol):
    def run(self, work: Sequence[ModelWork], worker: Worker) -> list[UnitRecord]: ...

    def train(self, jobs: Sequence[VariantJob], worker: Worker) -> dict[str, StoredVariant]: ...


class InProcessExecutor:
    """Runs each model's units in this process, one model after another."""

    def run(self, work: Sequence[ModelWork], worker: Worker) -> list[UnitRecord]:
        records: list[UnitRecord] = []
        for group in work:
            records.extend(worker(group))
        return records

    def train(self, jobs: Sequence[VariantJob], worker: Worker) -> dict[str, StoredVariant]:
        return worker.train(jobs)


def group_by_model(units: Sequence[ScoreUnit]) -> list[ModelWork]:
    """The units grouped by model, models and units in plan order."""
    order: dict[str, list[ScoreUnit]] = {}
    for unit in units:
        order.setdefault(unit.model, []).append(unit)
    return [ModelWork(model, tuple(group)) for model, group in order.items()]


def unit_record(outcome: UnitOutcome) -> UnitRecord:
    """The results.json record of one scored unit."""
    unit = outcome.unit
    return UnitRecord(
        model=unit.model,
        dataset=unit.dataset,
        scorer=unit.scorer,
        sentences=outcome.sentences,
        computed=outcome.computed,
        cached=outcome.cached,
        corrupt=outcome.corrupt,
        set_aside=list(outcome.set_aside),
        seconds=outcome.seconds,
    )
