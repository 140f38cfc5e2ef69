"""A scoring unit and what running it did: plain data shared by the plan, the executors
and the runner (no torch, no registry)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from audit.ids import PluginId


@dataclass(frozen=True)
class ScoreUnit:
    """Score every sentence of one dataset with one scorer (name and options) on one model.

    Hashable and serialisable (`to_dict` / `from_dict`), so any executor can ship it.
    """

    model: str
    dataset: str
    scorer: PluginId

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"model": self.model, "dataset": self.dataset, "scorer": self.scorer.model_dump()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScoreUnit:
        """The inverse of `to_dict`."""
        scorer = PluginId.model_validate(data["scorer"])
        return cls(model=str(data["model"]), dataset=str(data["dataset"]), scorer=scorer)


@dataclass(frozen=True)
class UnitOutcome:
    """What scoring one unit did: sentences it covers, cache entries computed now and
    found from earlier runs (corrupt ones recomputed), the seconds it took, and the cache
    database files found corrupt and set aside (renamed) while opening its namespace."""

    unit: ScoreUnit
    sentences: int
    computed: int
    cached: int
    corrupt: int
    seconds: float
    set_aside: tuple[str, ...] = ()
