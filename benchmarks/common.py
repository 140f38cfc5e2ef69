"""Measurement helpers shared by the benchmark scripts (run them as scripts:
`python benchmarks/<name>.py`, which puts this folder on sys.path)."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

import torch


def matmul_peak(size: int = 2048, repeats: int = 10) -> float:
    """Best float32 FLOP/s of a square matmul, all threads."""
    a, b = torch.randn(size, size), torch.randn(size, size)
    for _ in range(3):
        torch.mm(a, b)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        torch.mm(a, b)
        best = min(best, time.perf_counter() - start)
    return 2 * size**3 / best


def peak_rss_reset() -> None:
    """Reset VmHWM (Linux) so the next read is the peak of what follows."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")
