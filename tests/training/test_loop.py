"""The one training loop with an objective and a step hook of its own (what a new
debiasing loss or a new task head brings): the protocol is all the loop needs, a resumed
training equals an uninterrupted one, the hook's state survives the checkpoint."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import torch

from audit.errors import AuditUserError
from audit.training.loop import run_loop
from audit.training.objective import StatelessObjective, StepLoss
from audit.training.schedule import Stream, batch_indices
from audit.training.status import TrainingInterrupted, TrainingStatus


@dataclass(frozen=True)
class Settings:
    learning_rate: float = 0.05
    warmup: float = 0.2
    weight_decay: float = 0.01
    checkpoint_every: int = 2


class SquaredError(StatelessObjective):
    """y = x . w on 12 fixed examples; a second term (the mean output) on the curve."""

    name = "squared_error"
    term_names = ("mean_output",)

    def __init__(self, seed: int) -> None:
        generator = torch.Generator().manual_seed(0)
        self.x = torch.randn(12, 4, generator=generator)
        self.y = self.x @ torch.tensor([1.0, -2.0, 0.5, 3.0])
        self.seed = seed

    def step_loss(self, model: Any, step: int) -> StepLoss:
        rows = batch_indices(len(self.x), 3, step, self.seed, Stream.ORDER)
        out = torch.nn.functional.dropout(model(self.x[rows])[:, 0], 0.1)
        loss = torch.nn.functional.mse_loss(out, self.y[rows])
        return StepLoss(loss, {"mean_output": out.detach().mean()}, len(rows))


class CountingHook:
    name = "counting"

    def __init__(self) -> None:
        self.seen: list[int] = []

    def after_step(self, done: int, total: int) -> None:
        if done % 3 == 0 or done == total:
            self.seen.append(done)

    def state(self) -> dict[str, Any]:
        return {"seen": list(self.seen)}

    def load_state(self, state: dict[str, Any]) -> None:
        self.seen = list(state["seen"])


def _train(work_dir: Path, stop_after: int | None = None, hook: CountingHook | None = None) -> Any:
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1)
    statuses: list[TrainingStatus] = []
    result = run_loop(
        model,
        SquaredError(seed=5),
        total=8,
        settings=Settings(),
        seed=5,
        identity="toy",
        work_dir=work_dir,
        hook=hook,
        progress=statuses.append,
        stop_after=stop_after,
    )
    return model, result, statuses


def test_a_new_objective_trains_with_terms_on_the_curve(tmp_path: Path) -> None:
    _model, result, statuses = _train(tmp_path / "w")
    assert result.steps == 8 and result.tokens == 24
    assert [s.step for s in statuses] == list(range(1, 9))
    assert set(statuses[0].terms) == {"mean_output"}
    assert all("mean_output" in p.terms for p in result.curve)
    assert result.last_loss is not None and result.first_loss is not None
    assert result.last_loss < result.first_loss
    assert result.trainable_parameters == 5
    fields = result.summary_fields()
    assert fields["curve"][0] == result.curve[0].as_dict()


def test_resumed_training_equals_an_uninterrupted_one(tmp_path: Path) -> None:
    whole_model, whole, _ = _train(tmp_path / "whole", hook=(whole_hook := CountingHook()))
    with pytest.raises(TrainingInterrupted):
        _train(tmp_path / "parts", stop_after=5, hook=CountingHook())
    resumed_hook = CountingHook()
    model, resumed, statuses = _train(tmp_path / "parts", hook=resumed_hook)
    assert resumed.resumed_from_step == 5 and statuses[0].resumed_from == 5
    assert torch.equal(model.weight, whole_model.weight)
    assert torch.equal(model.bias, whole_model.bias)
    assert resumed.curve == whole.curve
    assert resumed_hook.seen == whole_hook.seen == [3, 6, 8]


def test_a_checkpoint_of_other_parameters_is_refused(tmp_path: Path) -> None:
    with pytest.raises(TrainingInterrupted):
        _train(tmp_path / "w", stop_after=2)
    bigger = torch.nn.Sequential(torch.nn.Linear(4, 1))
    with pytest.raises(AuditUserError, match="other parameters than this fine-tuning"):
        run_loop(
            bigger,
            SquaredError(seed=5),
            total=8,
            settings=Settings(),
            seed=5,
            identity="toy",
            work_dir=tmp_path / "w",
            what="fine-tuning",
        )
