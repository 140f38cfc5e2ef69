"""`audit plan`'s training estimate: a few steps of the training itself (the run's
trainer, the method's objective and data, AdamW and clipping), timed on the base model's
architecture; the median step times the job's steps."""

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
    """A clock whose readings are 1, 2, 3, ... s, then 10 s later for one step: so the
    median step (1 s) is counted, not the slowest."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 10.0 if self.now == 2.0 else 1.0
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
        assert steps == TIMED_TRAINING_STEPS + 1  # one untimed warm-up step
        assert checkpoint_every > steps
        assert summary.steps == steps and summary.first_loss is not None
    for model_id in ("gpt2-dropout", "bert-cda", "bert-at"):
        estimate = estimates[model_id]
        # median of the timed steps (1 s, 10 s, 1 s): 1 s a step
        assert estimate.seconds == pytest.approx(jobs[model_id].total_steps() * 1.0)
        job = jobs[model_id]
        method, kind = job.method.name, job.objective.kind
        assert f"{TIMED_TRAINING_STEPS} timed steps of the {method} training itself" in (
            estimate.basis
        )
        assert f"(its {kind} objective" in estimate.basis
        assert "AdamW, clipping" in estimate.basis
