"""The seconds each stage of planning and running took (results.json `timings`, in the
order the stages ran)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")


@dataclass
class Stopwatch:
    """Records each timed stage's seconds under its name, in the order they ran."""

    timings: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        started = time.monotonic()
        yield
        self.timings[name] = time.monotonic() - started

    def time(
        self, name: str, work: Callable[[], T], *, kept: Callable[[T], bool] | None = None
    ) -> T:
        """`work()`, its seconds recorded (only when `kept(its result)`, if given: a
        stage that found nothing to do has no time)."""
        started = time.monotonic()
        out = work()
        if kept is None or kept(out):
            self.timings[name] = time.monotonic() - started
        return out
