"""One crash case: kill `audit run` at a seeded moment of a stage, run it again, and
check the rerun against the uninterrupted run."""

from __future__ import annotations

import json
import signal
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from audit import faults
from tests.crash.conftest import Baseline
from tests.crash.harness import comparable, differences, run_audit_process, seeded_moments

#: Seeded moments drawn in each stage: 4 stages x 5 = 20 kills.
PER_STAGE = 5


def kill_and_resume(baseline: Baseline, stage: str, nth: int, work: Path) -> None:
    """Kill at the `nth` seeded moment of `stage`, rerun, and compare."""
    moments = [m for s, m in seeded_moments(baseline.points, PER_STAGE) if s == stage]
    assert len(moments) == PER_STAGE, (stage, moments)
    moment = moments[nth]
    cache, out = work / "cache", work / "out"
    killed = run_audit_process(
        baseline.root, cache=cache, out=out, env={faults.ENV_KILL_AT: str(moment)}
    )
    assert killed.returncode == -signal.SIGKILL, (stage, moment, killed.stderr[-2000:])
    outputs_are_whole(out)

    rerun = run_audit_process(baseline.root, cache=cache, out=out)
    assert rerun.returncode == 0, (stage, moment, rerun.stderr[-3000:])
    assert list(differences(baseline.results, comparable(out / "results.json"))) == []
    expected = pd.read_parquet(baseline.root / "baseline-out" / "scores.parquet")
    pd.testing.assert_frame_equal(pd.read_parquet(out / "scores.parquet"), expected)
    outputs_are_whole(out)


def outputs_are_whole(out: Path) -> None:
    """Whatever a killed run left under its final names is complete."""
    if (out / "results.json").exists():
        json.loads((out / "results.json").read_text())
    if (out / "scores.parquet").exists():
        pd.read_parquet(out / "scores.parquet")
    if (out / "report.html").exists():
        assert (out / "report.html").read_text().rstrip().endswith("</html>")


def resume_tests(*stages: str) -> Callable[..., None]:
    """A test with one case per seeded moment of each of `stages` (a file per group of
    stages, so that parallel workers share the kills)."""

    @pytest.mark.parametrize("nth", range(PER_STAGE))
    @pytest.mark.parametrize("stage", stages)
    def test_a_killed_run_resumes_to_identical_results(
        stage: str, nth: int, baseline: Baseline, tmp_path: Path
    ) -> None:
        kill_and_resume(baseline, stage, nth, tmp_path)

    return test_a_killed_run_resumes_to_identical_results
