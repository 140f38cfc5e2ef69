"""The uninterrupted run every crash test compares with, made once per test process."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.crash.harness import comparable, logged_points, make_audit


@dataclass(frozen=True)
class Baseline:
    root: Path
    points: list[str]
    results: dict[str, Any]
    scores: bytes


@pytest.fixture(scope="session")
def baseline(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Baseline:
    root = make_audit(tmp_path_factory.mktemp("crash-audit"), shared_data)
    run, points = logged_points(root, cache=root / "baseline-cache", out=root / "baseline-out")
    assert run.returncode == 0, run.stderr[-3000:]
    return Baseline(
        root=root,
        points=points,
        results=comparable(run.out / "results.json"),
        scores=(run.out / "scores.parquet").read_bytes(),
    )
