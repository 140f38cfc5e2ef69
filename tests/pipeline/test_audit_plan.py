"""One plan: `audit plan` prints the plan `audit run` executes. A spec with a variant and
an extrinsic task is planned once, before anything trains: the variant's score units and
fine-tuning are in the plan, and the run does exactly the planned work."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from audit.cli import app
from audit.display import SilentDisplay
from audit.engine import RunSettings, executed_steps, plan_audit, run_audit
from audit.pipeline.steps import unit_line
from audit.spec.loader import load_spec
from tests.extrinsic.test_engine_extrinsic import make_spec_dir

runner = CliRunner()


def _section(text: str, heading: str) -> list[str]:
    """The indented lines under a heading of `audit plan`'s output."""
    lines = text.splitlines()
    start = lines.index(heading) + 1
    out = []
    for line in lines[start:]:
        if not line.startswith("  "):
            break
        out.append(line)
    return out


@pytest.fixture(scope="module")
def spec_dir(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    root = tmp_path_factory.mktemp("one-plan")
    return make_spec_dir(root, shared_data, models_line="    models: [tiny-bert]\n")


def _settings(root: Path, cache: Path) -> RunSettings:
    return RunSettings(out_dir=root / "out", cache_dir=cache, data_dir=root / "data", device="cpu")


def test_the_plan_holds_every_unit_and_training_job_before_training(
    spec_dir: Path, tmp_path: Path
) -> None:
    plan = plan_audit(
        load_spec(spec_dir / "spec.yaml"), _settings(spec_dir, tmp_path), SilentDisplay()
    )
    assert plan.model_order == ("tiny-gpt2", "tiny-bert", "bert-dropout")
    assert "bert-dropout" not in plan.models  # not trained: prepared when the run trains it
    assert [u.model for u in plan.units] == ["tiny-gpt2", "tiny-bert", "bert-dropout"]
    jobs = plan.training_jobs()
    assert [(j.kind, j.model, j.what) for j in jobs] == [
        ("variant", "bert-dropout", "dropout of tiny-bert"),
        ("finetune", "tiny-bert", "sts_bias"),
        ("finetune", "bert-dropout", "sts_bias"),
    ]
    variant = plan.variant_jobs[0]
    assert jobs[0].key == variant.key  # the variant's content key (its cache folder)
    base = plan.models["tiny-bert"]
    assert jobs[1].key == plan.extrinsic[0].cache_key(base.fingerprint, "masked", 5)
    assert jobs[2].key is None  # needs the variant's fingerprint, known once trained


def test_audit_plan_lists_what_audit_run_executes(spec_dir: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    spec = spec_dir / "spec.yaml"
    args = ["--data-dir", str(spec_dir / "data"), "--cache-dir", str(cache)]
    printed = runner.invoke(app, ["plan", str(spec), *args])
    assert printed.exit_code == 0, printed.output
    plan = plan_audit(load_spec(spec), _settings(spec_dir, cache), SilentDisplay())

    outcome = run_audit(load_spec(spec), _settings(spec_dir, cache), SilentDisplay())
    result = outcome.result
    assert outcome.executed == plan.steps() == executed_steps(result)

    units = [
        line.split(" -> ")[0].strip()
        for line in _section(
            printed.output, "Scoring units (model x dataset x scorer -> measures):"
        )
        if " -> " in line
    ]
    assert units == [unit_line(u.model, u.dataset, u.scorer) for u in result.units]
    variants = [line.split(":")[0].strip() for line in _section(printed.output, "Variants:")]
    assert variants[: len(result.variants)] == [v.id for v in result.variants]
    finetunes = [
        line.split(":")[0].strip()
        for line in _section(printed.output, "Extrinsic tasks:")
        if line.startswith("    ")
    ]
    assert finetunes == [r.model for r in result.extrinsic]
    assert result.extrinsic[0].key == plan.training_jobs()[1].key
