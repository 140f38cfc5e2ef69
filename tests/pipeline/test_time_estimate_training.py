"""`audit plan`'s training estimate: a few steps of the training itself (the run's
trainer, the method's objective and data, AdamW and clipping), timed on the base model's
architecture; its set-up and first step once, then the median step times the others."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import audit.calibration
import audit.variants.build
from audit.display import SilentDisplay
from audit.engine import plan_audit
from audit.pipeline.time_estimate import TIMED_TRAINING_STEPS, Calibrator, training_estimates
from audit.results import TrainingSummary
from audit.spec.loader import load_spec
from tests.variants.engine_runs import cpu_settings
from tests.variants.test_engine_variants import spec_dir  # noqa: F401 (a fixture)


class StepClock:
    """A clock read five times a timed training: at the call, then after each of its four
    steps: the set-up and first step take 50 s, the next 10 s, the others 1 s each; so
    the set-up is counted once and the median step (1 s), not the slowest, for the rest."""

    def __init__(self) -> None:
        self.now = 0.0
        self.readings = 0

    def __call__(self) -> float:
        self.now += {0: 0.0, 1: 50.0, 2: 10.0}.get(self.readings % 5, 1.0)
        self.readings += 1
        return self.now


def test_a_training_is_estimated_from_timed_steps_of_itself(
    spec_dir: Path,  # noqa: F811
    tmp_path: Path,
    shared_data: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plan = plan_audit(
        load_spec(spec_dir / "spec.yaml"),
        cpu_settings(tmp_path / "out", tmp_path / "cache", shared_data),
        SilentDisplay(),
    )
    trained: list[tuple[str, int, int, TrainingSummary]] = []
    real_train_job = audit.variants.build.train_job

    def spy(job: Any, loaded: Any, **kwargs: Any) -> TrainingSummary:
        summary = real_train_job(job, loaded, **kwargs)
        trained.append((job.model_id, job.training.steps, job.training.checkpoint_every, summary))
        assert not any(Path(kwargs["work_dir"]).iterdir())  # no checkpoint written
        return summary

    monkeypatch.setattr(audit.variants.build, "train_job", spy)
    monkeypatch.setattr(audit.calibration, "clock", StepClock())
    calibrator = Calibrator(plan, SilentDisplay())
    estimates = {e.what.split(" ")[0]: e for e in training_estimates(plan, calibrator)}

    jobs = {job.model_id: job for job in plan.variants.jobs} if plan.variants else {}
    # each trained variant (the bias-controlled ratios too) timed through its own training
    timed = {model_id for model_id, *_ in trained}
    assert {"gpt2-dropout", "bert-cda", "bert-at"} <= timed
    for _model_id, steps, checkpoint_every, summary in trained:
        assert steps == TIMED_TRAINING_STEPS + 1  # the first step timed with the set-up
        assert checkpoint_every > steps
        assert summary.steps == steps and summary.first_loss is not None
    for model_id in ("gpt2-dropout", "bert-cda", "bert-at"):
        estimate = estimates[model_id]
        # the set-up and first step once (50 s), then the median step (of 10, 1, 1 s)
        assert estimate.seconds == pytest.approx(50.0 + (jobs[model_id].total_steps() - 1))
        job = jobs[model_id]
        method, kind = job.method.name, job.objective.kind
        assert f"{TIMED_TRAINING_STEPS} timed steps of the {method} training itself" in (
            estimate.basis
        )
        assert f"(its {kind} objective" in estimate.basis
        assert "AdamW, clipping" in estimate.basis
