"""Executors run the plan's scoring units. Work is grouped by model so that each model is
loaded once; a group's inputs are plain data (ids and units) and its outputs go to the
score cache, so a distributed executor can run groups anywhere that sees the cache."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from audit.results import UnitRecord
from audit.scoring.units import ScoreUnit, UnitOutcome


@dataclass(frozen=True)
class ModelWork:
    """All units of one model."""

    model: str
    units: tuple[ScoreUnit, ...]


Worker = Callable[[ModelWork], list[UnitRecord]]


class Executor(Protocol):
    def run(self, work: Sequence[ModelWork], worker: Worker) -> list[UnitRecord]: ...


class InProcessExecutor:
    """Runs each model's units in this process, one model after another."""

    def run(self, work: Sequence[ModelWork], worker: Worker) -> list[UnitRecord]:
        records: list[UnitRecord] = []
        for group in work:
            records.extend(worker(group))
        return records


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
        seconds=outcome.seconds,
    )
