"""Ctrl-C (SIGINT) and SIGTERM as an exception the run can clean up after.

`signals_raise()` (the `audit` command runs inside it) makes both signals raise
`Interrupted` in the main thread. It derives from BaseException, so an `except Exception`
does not swallow it and the command line framework does not turn it into a silent exit:
it reaches `audit.cli.main`, which prints what was saved (`audit.run_progress`) and
exits 128 + the signal number (130 for SIGINT, 143 for SIGTERM).

`deferred()` holds a signal back while a short piece of work must end whole (a training
step's update and bookkeeping): the exception is raised when the block ends. A second
signal while one is held back raises at once, so pressing Ctrl-C twice always stops.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived; `exit_code` is 128 + the signal's number."""

    def __init__(self, signal_name: str, exit_code: int) -> None:
        super().__init__(f"interrupted by {signal_name}")
        self.signal_name = signal_name
        self.exit_code = exit_code

    @classmethod
    def of(cls, signum: int) -> Interrupted:
        return cls(signal.Signals(signum).name, 128 + signum)


_deferring = 0
_pending: Interrupted | None = None


def _raise(signum: int, frame: FrameType | None) -> None:
    global _pending
    interrupt = Interrupted.of(signum)
    if _deferring and _pending is None:
        _pending = interrupt
        return
    _pending = None
    raise interrupt


@contextmanager
def signals_raise() -> Iterator[None]:
    """SIGINT and SIGTERM raise `Interrupted` inside the block (main thread only;
    elsewhere the block runs with the handlers as they are)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, _raise) for sig in SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@contextmanager
def deferred() -> Iterator[None]:
    """Hold back a signal that arrives inside the block until it ends (see module doc)."""
    global _deferring, _pending
    _deferring += 1
    try:
        yield
    finally:
        _deferring -= 1
        if not _deferring and _pending is not None:
            interrupt, _pending = _pending, None
            raise interrupt
