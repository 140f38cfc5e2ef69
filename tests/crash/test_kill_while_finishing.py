"""SIGKILL at seeded moments while models are fine-tuned and while trained models,
results and reports are written (issue 19 item 7, 10 of its 20 kills); each rerun must
match the uninterrupted run exactly and no output is ever left half-written."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.crash.conftest import Baseline
from tests.crash.resume_check import PER_STAGE, kill_and_resume


@pytest.mark.parametrize("nth", range(PER_STAGE))
@pytest.mark.parametrize("stage", ["fine-tuning", "writing"])
def test_a_killed_run_resumes_to_identical_results(
    stage: str, nth: int, baseline: Baseline, tmp_path: Path
) -> None:
    kill_and_resume(baseline, stage, nth, tmp_path)
