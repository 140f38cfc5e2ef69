"""Freed memory kept in the process while a CPU batch loop runs (glibc's malloc).

A scoring loop allocates tensors of the same sizes batch after batch. glibc's malloc
returns to the kernel the freed blocks above its mmap threshold and the free memory at
the heap's top past its trim threshold, so the next batch's tensors fault in their
pages anew: 670,000-690,000 minor page faults (2.7 GB mapped and zeroed again) for 600
ToxiGen sentences of SmolLM2 `ll` on the 2-core CPU. With both thresholds raised for
the loop, 60,000-106,000, and the same work took 41.1-47.2 s against 45.1-49.5 s
(median 1.08x, three rounds each in fresh processes, `benchmarks/causal_heap.py`,
docs/scoring.md). The numbers do not move: where a tensor's memory comes from does not
enter its arithmetic (torch aligns every CPU tensor to 64 bytes either way), which the
benchmark and `tests/scoring/test_retained_heap.py` check bit for bit.

On leaving the outermost loop, `malloc_trim` hands the freed memory back. The raised
thresholds stay (glibc cannot be put back into its adaptive mode), so memory freed later
is handed back only at the next loop's end. Without glibc (macOS, musl) nothing changes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import platform
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

#: glibc's `mallopt` parameters (malloc.h)
_M_TRIM_THRESHOLD = -1
_M_TOP_PAD = -2
_M_MMAP_THRESHOLD = -3
#: Blocks up to this size come from the heap, and this much free memory may stay at its
#: top: above the largest tensor of a batch (a 512-row chunk of logits over Gemma 3's
#: 262,144-token vocabulary is 537 MB).
RETAINED_BYTES = 1 << 30
#: Extra memory taken each time the heap grows, so that it grows in few steps.
TOP_PAD_BYTES = 64 << 20

_lock = threading.Lock()
_depth = 0


@cache
def _glibc() -> ctypes.CDLL | None:
    """The C library when it is glibc (whose `mallopt` and `malloc_trim` these are)."""
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return None
    name = ctypes.util.find_library("c") or "libc.so.6"
    try:
        libc = ctypes.CDLL(name)
    except OSError:
        return None
    if not (hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim")):
        return None
    return libc


def _retain(libc: ctypes.CDLL) -> bool:
    """Raise the thresholds; False when glibc refuses one."""
    settings = (
        (_M_MMAP_THRESHOLD, RETAINED_BYTES),
        (_M_TRIM_THRESHOLD, RETAINED_BYTES),
        (_M_TOP_PAD, TOP_PAD_BYTES),
    )
    return all(libc.mallopt(option, value) == 1 for option, value in settings)


@contextmanager
def retained_heap(device: torch.device) -> Iterator[bool]:
    """Inside, on the CPU with glibc, freed memory stays in the process; the outermost
    exit hands it back. Yields whether the thresholds were raised."""
    global _depth
    libc = _glibc() if device.type == "cpu" else None
    if libc is None:
        yield False
        return
    with _lock:
        _depth += 1
        raised = _retain(libc)
    try:
        yield raised
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                libc.malloc_trim(0)
