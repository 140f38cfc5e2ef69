"""A fine-tuning budget too small to learn the task is warned about (`audit validate` from
the task's known training size), and a `finetune:` block with a bad value is an error
naming the field, the value and what is accepted."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from audit.cli import app
from audit.extrinsic.budget import MIN_EPOCHS, budget_warnings, epochs_covered
from audit.extrinsic.catalog import EXTRINSIC_TASKS
from audit.extrinsic.finetune.settings import DEFAULT_EPOCHS, FineTuneSettings
from audit.spec.loader import load_spec, validate_spec_file

STS_B_TRAIN = 5749

SPEC = """\
spec_version: 1
name: budget
models: [{{id: m, source: {{hf: prajjwal1/bert-tiny}}}}]
datasets: [crows_pairs]
extrinsic:
  - task: sts_bias
    finetune: {finetune}
"""


def settings(**values: object) -> FineTuneSettings:
    return FineTuneSettings.model_validate(values)


def test_the_defaults_are_epochs_above_the_floor() -> None:
    default = FineTuneSettings()
    assert (default.steps, default.epochs, DEFAULT_EPOCHS) == (None, None, 2.0)
    assert (default.learning_rate, default.batch_size, default.warmup) == (5e-5, 16, 0.1)
    assert (default.checkpoint, default.dev_at_checkpoints) == ("best_dev", True)
    assert epochs_covered(default, STS_B_TRAIN) == pytest.approx(2.0, abs=0.01)
    assert budget_warnings(default, STS_B_TRAIN) == []
    assert budget_warnings(default, None) == []


def test_steps_below_one_epoch_are_warned_about() -> None:
    (warning,) = budget_warnings(settings(steps=60, batch_size=8), STS_B_TRAIN)
    assert warning.field == "steps"
    assert warning.message.startswith(
        "fine-tuning budget too small: 60 steps x 8 of 5,749 training examples are 8% of an "
        "epoch; below 1 epoch"
    )
    assert "give at least 719 steps (one epoch)" in warning.message
    assert budget_warnings(settings(steps=719, batch_size=8), STS_B_TRAIN) == []
    assert budget_warnings(settings(steps=718, batch_size=8), STS_B_TRAIN) != []
    assert budget_warnings(settings(steps=60), None) == [], "not judged without a size"
    (epochs,) = budget_warnings(settings(epochs=0.5), None)
    assert epochs.field == "epochs" and "0.5 epochs" in epochs.message
    assert budget_warnings(settings(epochs=MIN_EPOCHS), None) == []


def test_best_dev_without_dev_at_checkpoints_is_warned_about() -> None:
    (warning,) = budget_warnings(settings(dev_at_checkpoints=False), STS_B_TRAIN)
    assert warning.field == "dev_at_checkpoints"
    assert "the last checkpoint is used" in warning.message
    assert budget_warnings(settings(dev_at_checkpoints=False, checkpoint="last"), None) == []


def test_the_known_training_size_is_the_shipped_files(shared_data: Path) -> None:
    from audit.data.tasks.sts_b import load_sts_b

    assert EXTRINSIC_TASKS.entry("sts_bias").training_examples == STS_B_TRAIN
    assert len(load_sts_b(shared_data, "train")) == STS_B_TRAIN


def test_validate_warns_about_a_small_budget(tmp_path: Path) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(SPEC.format(finetune="{steps: 60, batch_size: 8}"))
    (warning,) = load_spec(path).warnings
    assert (warning.line, warning.field) == (7, "extrinsic[0].finetune.steps")
    assert "8% of an epoch" in warning.message and not warning.is_error
    result = CliRunner().invoke(app, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    assert (
        f"{path}:7:" in result.output
        and "warning: extrinsic[0].finetune.steps: fine-tuning budget too small" in result.output
    )
    path.write_text(SPEC.format(finetune="{epochs: 1}"))
    assert load_spec(path).warnings == ()


@pytest.mark.parametrize(
    ("finetune", "field", "words"),
    [
        ("{checkpoint: best}", "checkpoint", ["'best_dev' or 'last'", "got 'best'"]),
        ("{steps: 0}", "steps", ["must be at least 1", "got 0"]),
        ("{epochs: 0}", "epochs", ["greater than 0", "got 0"]),
        ("{steps: 100, epochs: 2}", "", ["give `steps` or `epochs`, not both"]),
        ("{learning_rate: 2}", "learning_rate", ["less than 1", "got 2"]),
        ("{checkpoint_every: 0}", "checkpoint_every", ["must be at least 1", "got 0"]),
        ("{pooling: max}", "pooling", ["'cls', 'mean' or 'last'"]),
        ("{seeds: 0}", "seeds", ["must be at least 1", "got 0"]),
        ("{seeds: -3}", "seeds", ["must be at least 1", "got -3"]),
        ("{epoch: 2}", "epoch", ["did you mean 'epochs'?", "checkpoint)"]),
    ],
)
def test_bad_finetune_values_are_errors_naming_field_value_and_accepted(
    tmp_path: Path, finetune: str, field: str, words: list[str]
) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(SPEC.format(finetune=finetune))
    errors = [p for p in validate_spec_file(path) if p.is_error]
    assert len(errors) == 1, [e.format() for e in errors]
    text = errors[0].format()
    assert text.startswith(f"{path}:")
    assert f"extrinsic[0].finetune{'.' + field if field else ''}" in text
    for word in words:
        assert word in text, text
