"""Fault points: named moments at which a crash test may kill the process.

The tool calls `fault_point(name)` where a crash is most likely to lose or half-write
something: before and after each score batch is committed to the cache, after each
training step, before and after each output file is put in place. In normal runs it
does nothing but count. Two environment variables drive the crash tests
(`tests/test_faults*.py`):

- `AUDIT_FAULT_LOG=<file>` appends the name of every fault point reached, one a line,
  so that a test knows how many moments an uninterrupted run has;
- `AUDIT_FAULT_KILL_AT=<n>` sends SIGKILL to this process at the n-th fault point
  (1-based): the same as `kill -9` at that moment, with no chance to clean up.

A seeded random n therefore gives a seeded random moment that is the same on every
machine, whatever its speed.
"""

from __future__ import annotations

import os
import signal

ENV_KILL_AT = "AUDIT_FAULT_KILL_AT"
ENV_LOG = "AUDIT_FAULT_LOG"

_reached = 0


def _kill_at() -> int | None:
    value = os.environ.get(ENV_KILL_AT, "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else None


def fault_point(name: str) -> None:
    """Count a fault point; log it or kill the process here when a crash test asks."""
    global _reached
    _reached += 1
    log = os.environ.get(ENV_LOG)
    if log:
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(f"{name}\n")
    if _kill_at() == _reached:
        os.kill(os.getpid(), signal.SIGKILL)


def reached() -> int:
    """Fault points reached so far in this process."""
    return _reached
