"""One writer per cache namespace at a time, across processes.

`namespace_lock` holds an exclusive `fcntl.flock` on the namespace's `lock` file while a
unit fills it. A second `audit run` on the same cache waits there, then reads what the
first committed and scores only what is still missing, so two runs at once both finish
with the same scores and no entry is computed twice (beyond the one batch a killed run
may lose). The lock goes with the process: a killed holder never leaves it stuck.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_NAME = "lock"


@contextmanager
def namespace_lock(folder: Path) -> Iterator[None]:
    """Hold the exclusive lock of the namespace in `folder` (waiting for it if needed)."""
    fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
