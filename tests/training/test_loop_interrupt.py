"""Ctrl-C or SIGTERM during a training: the loop writes a checkpoint at the last finished
step and re-raises; training again from it equals an uninterrupted training."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest
import torch

from audit.interrupts import Interrupted, signals_raise
from audit.training.checkpoint import load_checkpoint
from audit.training.loop import run_loop
from audit.training.objective import StepLoss
from audit.training.status import TrainingStatus
from tests.training.test_loop import CountingHook, Settings, SquaredError, _train


class InterruptedAt(SquaredError):
    """Raises in the forward pass of step `at` (0-based): `at` steps are finished."""

    def __init__(self, seed: int, at: int) -> None:
        super().__init__(seed)
        self.at = at

    def step_loss(self, model: Any, step: int) -> StepLoss:
        if step == self.at:
            raise Interrupted("SIGTERM", 143)
        return super().step_loss(model, step)


def _interrupted(work_dir: Path, objective: SquaredError, **extra: Any) -> None:
    torch.manual_seed(0)
    run_loop(
        torch.nn.Linear(4, 1),
        objective,
        total=8,
        settings=Settings(),
        seed=5,
        identity="toy",
        work_dir=work_dir,
        hook=CountingHook(),
        **extra,
    )


def _step_on_disk(work_dir: Path) -> int:
    checkpoint = load_checkpoint(work_dir, identity="toy", device=torch.device("cpu"))
    assert checkpoint is not None
    return checkpoint.step


@pytest.mark.parametrize("at", [5, 7])
def test_an_interrupt_in_a_forward_pass_keeps_every_finished_step(tmp_path: Path, at: int) -> None:
    whole_model, whole, _ = _train(tmp_path / "whole", hook=(whole_hook := CountingHook()))
    with pytest.raises(Interrupted):
        _interrupted(tmp_path / "parts", InterruptedAt(seed=5, at=at))
    assert _step_on_disk(tmp_path / "parts") == at  # not 4, the last periodic checkpoint
    model, resumed, _ = _train(tmp_path / "parts", hook=(hook := CountingHook()))
    assert resumed.resumed_from_step == at
    assert torch.equal(model.weight, whole_model.weight)
    assert resumed.curve == whole.curve and hook.seen == whole_hook.seen


def test_a_signal_during_the_update_waits_for_the_step_to_end(tmp_path: Path) -> None:
    def progress(status: TrainingStatus) -> None:
        if status.step == 3:
            os.kill(os.getpid(), signal.SIGINT)

    whole_model, _, _ = _train(tmp_path / "whole")
    with pytest.raises(Interrupted) as raised, signals_raise():
        _interrupted(tmp_path / "parts", SquaredError(seed=5), progress=progress)
    assert raised.value.exit_code == 130
    assert _step_on_disk(tmp_path / "parts") == 3
    model, resumed, _ = _train(tmp_path / "parts", hook=CountingHook())
    assert resumed.resumed_from_step == 3 and torch.equal(model.weight, whole_model.weight)


def test_a_plain_keyboard_interrupt_saves_too(tmp_path: Path) -> None:
    class KeyboardAt(SquaredError):
        def step_loss(self, model: Any, step: int) -> StepLoss:
            if step == 3:
                raise KeyboardInterrupt
            return super().step_loss(model, step)

    with pytest.raises(KeyboardInterrupt):
        _interrupted(tmp_path / "w", KeyboardAt(seed=5))
    assert _step_on_disk(tmp_path / "w") == 3


def test_a_checkpoint_folder_left_by_a_killed_training_is_removed(tmp_path: Path) -> None:
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    left = tmp_path / "w" / f"checkpoint.tmp-{dead.stdout.strip()}"
    left.mkdir(parents=True)
    (left / "state.pt").write_bytes(b"half")
    _train(tmp_path / "w")
    assert sorted(p.name for p in (tmp_path / "w").iterdir()) == ["checkpoint"]
