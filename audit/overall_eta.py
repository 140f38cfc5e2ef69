"""The overall ETA of the scoring stage: the work left in all its units over the rate so far.

Before scoring, the engine names every unit it will score (`QueuedUnit`: its progress
bar's key, the sentences it scores at most, and the queue it runs in: a model's units run
one after another, in order). `OverallWork` then follows the stage's bars:

* a unit's bar starts with what the score cache lacks, so its cached part needs no time;
* a unit whose later queue-mate starts a bar without it having started one was wholly in
  the cache (a unit with nothing to score draws no bar);
* the rate is the sentences scored since the stage's first bar started over the time
  since then (model loads between units included: the units left will load theirs).

The ETA is the sum of the work left over that rate; None while nothing is scored yet.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple


class QueuedUnit(NamedTuple):
    """One unit the scoring stage will run: its bar's key, its sentences (at most: the
    cache may hold some) and its queue (the units of one queue run in order)."""

    key: str
    size: int
    queue: str


@dataclass
class OverallWork:
    """The scoring stage's units and how far each got, for one overall ETA."""

    units: Sequence[QueuedUnit]
    #: Work left per unit key (its size until its bar starts, then its bar's remainder).
    left: dict[str, int] = field(default_factory=dict)
    started_keys: set[str] = field(default_factory=set)
    done: int = 0
    started: float | None = None

    def __post_init__(self) -> None:
        self.left = {u.key: u.size for u in self.units}

    def covers(self, key: str) -> bool:
        return key in self.left

    def bar_started(self, key: str, total: int, now: float) -> None:
        """The bar of `key` started with `total` to score (what the cache lacks)."""
        if key not in self.left:
            return
        if self.started is None:
            self.started = now
        self.left[key] = total
        self.started_keys.add(key)
        queue = next(u.queue for u in self.units if u.key == key)
        for unit in self.units:
            if unit.key == key:
                break
            if unit.queue == queue and unit.key not in self.started_keys:
                self.left[unit.key] = 0  # it ran before this one and drew no bar: cached

    def advanced(self, key: str, n: int) -> None:
        if key in self.left:
            self.left[key] = max(self.left[key] - n, 0)
            self.done += n

    @property
    def remaining(self) -> int:
        return sum(self.left.values())

    def eta(self, now: float) -> float | None:
        """Seconds left for the whole stage at the rate since its first bar started."""
        if self.started is None or self.done <= 0 or now <= self.started:
            return None
        rate = self.done / (now - self.started)
        return self.remaining / rate
