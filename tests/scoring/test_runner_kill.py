"""A run killed with SIGKILL between two batch commits keeps every committed batch, and
its rerun writes the same results as an uninterrupted run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.models.tiny import save_tiny_bert
from tests.scoring.test_cache_lock import PAIRS, SPEC

REPO = Path(__file__).resolve().parents[2]
# Small forward batches: the unit runs in several, each committed on its own.
SMALL_BATCHES = SPEC.replace("masked: [pll]", "masked: [{name: pll, batch_tokens: 48}]")


def _run(root: Path, out: str, cache: str, **env: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from audit.cli import main; main()", "run", "spec.yaml"]
    command += ["--out", out, "--cache-dir", cache, "--data-dir", "data", "--device", "cpu"]
    return subprocess.run(
        command,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(REPO), **env},
        capture_output=True,
        text=True,
        timeout=240,
    )


def test_a_killed_run_resumes_from_its_last_committed_batch(tmp_path: Path) -> None:
    save_tiny_bert(tmp_path / "model")
    (tmp_path / "spec.yaml").write_text(SMALL_BATCHES)
    (tmp_path / "pairs.csv").write_text(PAIRS)
    (tmp_path / "data").mkdir()  # --data-dir must exist (the spec reads its own file)
    log = tmp_path / "faults.log"
    straight = _run(tmp_path, "straight", "cache1", AUDIT_FAULT_LOG=str(log))
    assert straight.returncode == 0, straight.stdout + straight.stderr
    points = log.read_text().splitlines()
    batches = points.count("score-batch-committed")
    assert batches >= 4  # several batch commits (and the chunk's entries commit)
    # killed just after the second batch commit
    second = [i for i, p in enumerate(points, 1) if p == "score-batch-committed"][1]
    killed = _run(tmp_path, "killed", "cache2", AUDIT_FAULT_KILL_AT=str(second))
    assert killed.returncode == -signal.SIGKILL
    log.unlink()
    resumed = _run(tmp_path, "resumed", "cache2", AUDIT_FAULT_LOG=str(log))
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    # the two committed batches were not run again
    assert log.read_text().splitlines().count("score-batch-committed") == batches - 2
    first, again = (
        json.loads((tmp_path / d / "results.json").read_text()) for d in ("straight", "resumed")
    )
    assert first["measurements"] == again["measurements"]
    assert _same_scores(tmp_path)  # every score, bit for bit


def _same_scores(root: Path) -> bool:
    import pandas as pd

    a = pd.read_parquet(root / "straight" / "scores.parquet")
    b = pd.read_parquet(root / "resumed" / "scores.parquet")
    return bool(a.equals(b))
