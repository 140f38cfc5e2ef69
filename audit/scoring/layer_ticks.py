"""Progress inside a forward pass: one tick per transformer layer.

On a CPU one batch of a few thousand tokens can take tens of seconds, so a count that
moves only when a batch ends jumps in big steps with long pauses. `LayerTicks` hooks
the model's stack of layers (read-only forward hooks: no output is changed) and, while
a batch of `n` sentences runs, reports its share of `n` after each layer (at most one
report per `TICK_SECONDS`, so fast batches still make one call each); when the batch
ends it reports the rest, so the batch still adds exactly `n`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from audit.scoring.batch_journal import batch_work

if TYPE_CHECKING:
    import torch

#: Least time between two reports from inside one batch.
TICK_SECONDS = 1.0


def layer_stack(model: torch.nn.Module) -> list[torch.nn.Module]:
    """The model's transformer blocks: its longest ModuleList ([] if it has none)."""
    import torch

    lists = [list(m) for m in model.modules() if isinstance(m, torch.nn.ModuleList)]
    return max(lists, key=len) if lists else []


class LayerTicks:
    """Reports a batch's sentences a layer at a time; use `batch(n)` around each batch."""

    def __init__(self, model: torch.nn.Module, progress: Callable[[int], None]) -> None:
        self.progress = progress
        self._layers = layer_stack(model)
        self._hooks: list[Any] = []
        self._size = 0
        self._seen = 0
        self._reported = 0
        self._last = 0.0

    def __enter__(self) -> LayerTicks:
        self._hooks = [layer.register_forward_hook(self._tick) for layer in self._layers]
        return self

    def __exit__(self, *exc: object) -> None:
        for hook in self._hooks:
            hook.remove()
        self._hooks = []

    def _tick(self, *_: object) -> None:
        if not self._size:
            return
        self._seen += 1
        now = time.monotonic()
        if now - self._last < TICK_SECONDS:
            return
        # One share per layer and one for what follows them (head, gathering):
        # the last share comes when the batch ends.
        due = min(self._size * self._seen // (len(self._layers) + 1), self._size)
        if due > self._reported:
            self.progress(due - self._reported)
            self._reported = due
            self._last = now

    @contextmanager
    def batch(self, n: int) -> Iterator[None]:
        """Around one batch worth `n` sentences: ticks while it runs, the rest at the end;
        a batch journalled inside records `n` as its work (`batch_journal.batch_work`)."""
        self._size, self._seen, self._reported = n, 0, 0
        self._last = time.monotonic()
        try:
            with batch_work(n):
                yield
        finally:
            rest = n - self._reported
            self._size = 0
        if rest:
            self.progress(rest)
