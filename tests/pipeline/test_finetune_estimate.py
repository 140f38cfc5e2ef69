"""`audit plan`'s fine-tuning estimate: a few steps of the run's own fine-tuning and one
checkpoint's work (the task's predictions, the dev score), timed on the model's
architecture; the steps and every checkpoint of the planned fine-tuning counted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import audit.calibration
import audit.extrinsic.finetune.tune
from audit.display import SilentDisplay
from audit.engine import plan_audit
from audit.pipeline.audit_plan import AuditPlan
from audit.pipeline.calibrator import Calibrator
from audit.pipeline.finetune_estimate import (
    TIMED_FINETUNE_STEPS,
    checkpoints_of,
    finetune_estimates,
)
from audit.spec.loader import load_spec
from tests.extrinsic.test_engine_extrinsic import make_spec_dir, settings_for


@pytest.fixture(scope="module")
def spec_dir(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    return make_spec_dir(tmp_path_factory.mktemp("finetune-estimate"), shared_data)


def plan_with(spec_dir: Path, cache: Path, finetune_extra: str = "") -> AuditPlan:
    spec = spec_dir / "spec.yaml"
    text = spec.read_text().replace("checkpoint_every: 3,", f"checkpoint_every: 3,{finetune_extra}")
    edited = spec.with_name("spec-estimate.yaml")
    edited.write_text(text)
    return plan_audit(load_spec(edited), settings_for(spec_dir, cache), SilentDisplay())


def test_checkpoints_are_every_kth_step_and_the_last() -> None:
    assert checkpoints_of(200, 200) == 1
    assert checkpoints_of(200, 100) == 2
    assert checkpoints_of(250, 100) == 3
    assert checkpoints_of(6, 3) == 2
    assert checkpoints_of(2, 3) == 1


@pytest.mark.parametrize(("dev_at_checkpoints", "devs"), [(True, 2), (False, 1)])
def test_a_fine_tuning_is_estimated_from_its_own_steps_and_checkpoints(
    spec_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    dev_at_checkpoints: bool,
    devs: int,
) -> None:
    extra = "" if dev_at_checkpoints else " dev_at_checkpoints: false,"
    plan = plan_with(spec_dir, tmp_path / "cache", extra)
    tuned: list[dict[str, Any]] = []
    real_finetune = audit.extrinsic.finetune.tune.finetune

    def spy(loaded: Any, head: Any, train: Any, dev: Any, **kwargs: Any) -> Any:
        tuned.append({"settings": kwargs["settings"], "train": len(train), "dev": len(dev)})
        return real_finetune(loaded, head, train, dev, **kwargs)

    monkeypatch.setattr(audit.extrinsic.finetune.tune, "finetune", spy)
    # every reading 1 s after the last: a step, the predictions and the dev score 1 s each
    monkeypatch.setattr(audit.calibration, "clock", iter(range(10**6)).__next__)
    estimates = finetune_estimates(plan, Calibrator(plan, SilentDisplay()))

    assert [e.what for e in estimates] == [
        "sts_bias on tiny-gpt2: 6 steps",
        "sts_bias on tiny-bert: 6 steps",
        "sts_bias on bert-dropout: 6 steps (timed as its base tiny-bert)",
    ]
    # timed once per model shape: the variant reads its base's measurement
    assert len(tuned) == 2
    for call in tuned:
        settings = call["settings"]
        assert settings.steps == TIMED_FINETUNE_STEPS + 1  # one untimed warm-up step
        assert settings.checkpoint_every == settings.steps  # one checkpoint, at the end
        assert call["train"] == 48 and call["dev"] == 0  # the dev score is timed apart
    # 6 steps, 2 checkpoints with the task's predictions, the dev set at each or at the end
    for estimate in estimates:
        assert estimate.seconds == pytest.approx(6 * 1.0 + 2 * 1.0 + devs * 1.0)
        assert f"{TIMED_FINETUNE_STEPS} timed steps of the fine-tuning itself" in estimate.basis
        assert "2 checkpoints with the task's predictions" in estimate.basis
        at = "at each" if dev_at_checkpoints else "at the last"
        assert f"the dev set's 24 rows scored {at}" in estimate.basis


def test_the_measurement_is_kept_and_the_seed_does_not_retime_it(
    spec_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    plan = plan_with(spec_dir, cache)
    first = finetune_estimates(plan, Calibrator(plan, SilentDisplay()))
    calls: list[object] = []
    monkeypatch.setattr(audit.extrinsic.finetune.tune, "finetune", lambda *a, **k: calls.append(a))
    seeded = plan_with(spec_dir, cache, " seed: 11,")
    again = finetune_estimates(seeded, Calibrator(seeded, SilentDisplay()))
    assert not calls, "read from the cache: nothing fine-tuned"
    assert [e.seconds for e in again] == [e.seconds for e in first]
