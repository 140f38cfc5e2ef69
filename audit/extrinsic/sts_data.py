"""The STS Benchmark reader, importable here as before: the dataset lives on the data
side (`audit.data.tasks.sts_b`, registered in `audit.data.catalog.TASK_DATASETS`)."""

from __future__ import annotations

from audit.data.tasks.sts_b import (
    SPLITS,
    STS_B_FOLDER,
    StsRow,
    StsSplit,
    load_sts_b,
    read_sts_b,
    sts_b_path,
)

__all__ = ["SPLITS", "STS_B_FOLDER", "StsRow", "StsSplit", "load_sts_b", "read_sts_b", "sts_b_path"]
