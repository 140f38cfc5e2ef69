"""What the run and its Ray workers send each other: plain, picklable data. A worker gets
a model request and the exact cache entries to compute (texts and keys), never a path of
the run's machine it must read, nor the score cache."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from audit.errors import AuditUserError, ModelSourceError

if TYPE_CHECKING:
    from audit.executor import ModelRequest
    from audit.ids import PluginId
    from audit.results import ProbeRecord, TrainingSummary
    from audit.scoring.cache import Entry
    from audit.scoring.runner import Job
    from audit.variants.jobs import VariantJob


class MissingExtraError(AuditUserError):
    """An optional dependency that the chosen executor needs is not installed."""


class WorkerModelError(ModelSourceError):
    """A worker finds a model other than the one the run planned with."""


@dataclass(frozen=True)
class ShippedModel:
    """A local model's files, for a worker that does not have them: `ref` is a list
    holding one Ray object reference to `{relative name: bytes}` (a list, so that Ray
    fetches the bytes only when the worker asks for them)."""

    ref: list[Any]
    size: int


@dataclass(frozen=True)
class UnitRequest:
    """One unit's missing cache entries, to be scored in this order."""

    scorer: PluginId
    missing: list[Job]


@dataclass(frozen=True)
class ScoreRequest:
    """One model's scoring: load it once, score every unit's missing entries."""

    tool_version: str
    model: ModelRequest
    shipped: ShippedModel | None
    units: list[UnitRequest]
    chunk: int


@dataclass(frozen=True)
class ModelLoaded:
    """The first message of a scoring task: the model loaded, checked, on this node
    (`seconds`: resolving, fingerprinting and loading it)."""

    node: str
    device: str
    n_parameters: int
    seconds: float


@dataclass(frozen=True)
class ScoredChunk:
    """The entries of one chunk of unit `unit` (its index in the request), scored in
    `seconds`."""

    unit: int
    entries: dict[str, Entry]
    seconds: float


@dataclass(frozen=True)
class TrainRequest:
    """One variant training job, on a base model loaded for training."""

    tool_version: str
    job: VariantJob
    base: ModelRequest
    shipped: ShippedModel | None
    occupations: list[str] | None
    stop_after: int | None = None


@dataclass(frozen=True)
class TrainedVariant:
    """A trained variant as the worker saved it: the model folder's files, with its
    training summary and he/she probe (`seconds`: the whole task on the worker, of which
    `load_seconds` loading the base)."""

    model_id: str
    node: str
    device: str
    n_parameters: int
    seconds: float
    load_seconds: float
    summary: TrainingSummary
    probe: ProbeRecord | None
    files: dict[str, bytes] = field(repr=False)
