"""A Self-Debias variant changes only the output distribution at scoring time: its
encoder is its base's, so an extrinsic task cannot fine-tune it (the result would be its
base's again). A task that brings it in by default or with its base leaves it out with a
warning (`audit validate`) and a line (`audit plan`); naming it in a task's `models` is an
error naming the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.display import SilentDisplay
from audit.engine import plan_audit
from audit.extrinsic.planned import plan_extrinsic
from audit.extrinsic.settings import ExtrinsicSpec
from audit.pipeline.plan_text import describe_extrinsic
from audit.spec.loader import load_spec, validate_spec_file
from tests.extrinsic.test_engine_extrinsic import make_spec_dir, settings_for

SPEC = """\
spec_version: 1
name: output-only
models: [{{id: m, source: {{hf: prajjwal1/bert-tiny}}}}, {{id: n, source: {{hf: gpt2}}}}]
datasets: [crows_pairs]
variants:
  - {{id: m-sd, base: m, method: self_debias}}
  - {{id: m-cda, base: m, method: cda, corpus: sts_b}}
extrinsic:
  - task: sts_bias
{models}"""


def problems(tmp_path: Path, models: str) -> list[tuple[bool, str]]:
    path = tmp_path / "spec.yaml"
    path.write_text(SPEC.format(models=models))
    return [(p.is_error, p.format()) for p in validate_spec_file(path)]


@pytest.mark.parametrize("models", ["", "    models: [m]\n", "    models: [m, m-cda]\n"])
def test_a_task_that_brings_it_in_leaves_it_out_with_a_warning(tmp_path: Path, models: str) -> None:
    ((is_error, text),) = problems(tmp_path, models)
    assert not is_error and "warning: extrinsic[0]:" in text
    assert "extrinsic task 'sts_bias' leaves out 'm-sd'" in text
    assert "a self_debias variant changes only the output distribution" in text
    assert "m-cda" not in text.split("leaves out", 1)[1].split("(", 1)[0]


def test_naming_it_in_models_is_an_error_naming_the_field(tmp_path: Path) -> None:
    ((is_error, text),) = problems(tmp_path, "    models: [n, m-sd]\n")
    assert is_error and "extrinsic[0].models[1]" in text
    assert "variant 'm-sd' cannot be fine-tuned" in text and "leave it out of `models`" in text


def test_a_task_without_it_says_nothing(tmp_path: Path) -> None:
    assert problems(tmp_path, "    models: [n]\n") == []


def test_the_stage_leaves_unfit_models_out(shared_data: Path) -> None:
    (task,) = plan_extrinsic(
        [ExtrinsicSpec(task="sts_bias")],
        model_types={"m": "masked", "m-sd": "masked", "m-cda": "masked"},
        variants_of={"m": ["m-sd", "m-cda"]},
        data_dir=shared_data,
        seed=0,
        unfit={"m-sd": "why"},
    )
    assert task.models == ("m", "m-cda") and task.left_out == (("m-sd", "why"),)


def test_the_plan_leaves_it_out_and_says_why(tmp_path: Path, shared_data: Path) -> None:
    root = make_spec_dir(tmp_path, shared_data)
    spec = root / "spec.yaml"
    spec.write_text(
        spec.read_text().replace(
            "lm_quality:", "  - {id: bert-sd, base: tiny-bert, method: self_debias}\nlm_quality:"
        )
    )
    loaded = load_spec(spec)
    assert [w.message for w in loaded.warnings if "leaves out" in w.message]
    plan = plan_audit(loaded, settings_for(root, tmp_path / "c"), SilentDisplay())
    assert "bert-sd" in plan.model_order
    (task,) = plan.extrinsic
    assert task.models == ("tiny-gpt2", "tiny-bert", "bert-dropout")
    assert [m for m, _ in task.left_out] == ["bert-sd"]
    assert all(j.model != "bert-sd" for j in plan.training_jobs() if j.kind == "finetune")
    assert describe_extrinsic(plan)[-1] == (
        "    bert-sd: left out: a self_debias variant changes only the output distribution at "
        "scoring time and its encoder is its base's, so fine-tuning it would measure its base "
        "again"
    )
