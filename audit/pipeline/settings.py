"""Where a run's files go and what it runs on: nothing here changes a number."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class RunSettings:
    """Where things go and what to run on; none of it changes a number."""

    out_dir: Path
    cache_dir: Path
    data_dir: Path | None = None
    device: str = "auto"
    stop_training_after: int | None = None  # test hook: interrupt each variant training
