"""SIGKILL at seeded moments while scores are computed and a variant trains (issue 19
item 7, 10 of its 20 kills); each rerun must match the uninterrupted run exactly. The
moments are fault points (`audit.faults`) drawn with a fixed seed (`harness.SEED`)."""

from __future__ import annotations

from tests.crash.conftest import Baseline
from tests.crash.harness import STAGES
from tests.crash.resume_check import PER_STAGE, resume_tests


def test_every_stage_has_enough_moments(baseline: Baseline) -> None:
    counts = dict.fromkeys(STAGES.values(), 0)
    for name in baseline.points:
        if name in STAGES:
            counts[STAGES[name]] += 1
    assert all(n >= PER_STAGE for n in counts.values()), counts


test_a_killed_run_resumes_to_identical_results = resume_tests("scoring", "variant training")
