"""`finetune: {seeds: 2}` through `audit plan` and `audit run` on tiny models: the plan
counts one fine-tuning job per seed (the first keyed as the one-seed spec keys it) and
its time estimate covers each; the run does exactly the planned jobs, records each
model's mean with its seeds, hands the value's replicates to the studies, and the report
shows the seeds' spread in the extrinsic section, never on page 1."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import audit.calibration
import audit.pipeline.run_stages
from audit.display import SilentDisplay
from audit.engine import RunOutcome, executed_steps, plan_audit, run_audit
from audit.pipeline.audit_plan import AuditPlan
from audit.pipeline.calibrator import Calibrator
from audit.pipeline.finetune_estimate import finetune_estimates
from audit.pipeline.plan_text import describe_extrinsic
from audit.results import AuditResult
from audit.spec.loader import load_spec
from tests.extrinsic.test_engine_extrinsic import make_spec_dir, settings_for


def with_seeds(spec: Path, seeds: int) -> Path:
    text = spec.read_text().replace("checkpoint_every: 3,", f"checkpoint_every: 3, seeds: {seeds},")
    out = spec.with_name(f"spec-{seeds}.yaml")
    out.write_text(text)
    return out


@pytest.fixture(scope="module")
def spec_dir(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    root = tmp_path_factory.mktemp("engine-seeds")
    return make_spec_dir(root, shared_data, models_line="    models: [tiny-bert]\n")


def plan_of(spec_dir: Path, seeds: int, cache: Path) -> AuditPlan:
    spec = load_spec(with_seeds(spec_dir / "spec.yaml", seeds))
    return plan_audit(spec, settings_for(spec_dir, cache), SilentDisplay())


@pytest.fixture(scope="module")
def run(
    spec_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[RunOutcome, AuditPlan, dict[str, Any]]:
    cache = tmp_path_factory.mktemp("cache")
    plan = plan_of(spec_dir, 2, cache)
    seen: dict[str, Any] = {}
    original = audit.pipeline.run_stages.run_studies

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.update(kwargs)
        return original(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(audit.pipeline.run_stages, "run_studies", spy)
        spec = load_spec(with_seeds(spec_dir / "spec.yaml", 2))
        outcome = run_audit(spec, settings_for(spec_dir, cache), SilentDisplay())
    return outcome, plan, seen


def test_the_plan_counts_a_job_per_seed(spec_dir: Path, tmp_path: Path) -> None:
    one, two = plan_of(spec_dir, 1, tmp_path), plan_of(spec_dir, 2, tmp_path)
    jobs = [(j.model, j.seed) for j in two.training_jobs() if j.kind == "finetune"]
    assert jobs == [("tiny-bert", 5), ("tiny-bert", 6), ("bert-dropout", 5), ("bert-dropout", 6)]
    (single,) = [j for j in one.training_jobs() if j.kind == "finetune" and j.key]
    first, second = [j for j in two.training_jobs() if j.kind == "finetune" and j.key]
    assert single.seed is None and first.key == single.key, "seed 5 keeps the one-seed key"
    assert second.key != first.key
    assert [s for s in two.steps() if s.startswith("fine-tune")] == [
        "fine-tune sts_bias on tiny-bert (seed 5)",
        "fine-tune sts_bias on tiny-bert (seed 6)",
        "fine-tune sts_bias on bert-dropout (seed 5)",
        "fine-tune sts_bias on bert-dropout (seed 6)",
    ]
    assert [s for s in one.steps() if s.startswith("fine-tune")] == [
        "fine-tune sts_bias on tiny-bert",
        "fine-tune sts_bias on bert-dropout",
    ]
    lines = describe_extrinsic(two)
    assert lines[1].endswith("checkpoint, 2 seeds per model (5, 6), their mean measured):")
    assert lines[2] == f"    tiny-bert (seed 5): to fine-tune (key {first.key[:8]})"  # type: ignore[index]
    assert lines[3].startswith("    tiny-bert (seed 6): to fine-tune (key ")
    assert lines[4] == "    bert-dropout: to fine-tune 2 times once the variant is trained"


def test_the_time_estimate_covers_every_seed(
    spec_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(audit.calibration, "clock", iter(range(10**6)).__next__)
    estimates = {}
    for seeds in (1, 2):
        plan = plan_of(spec_dir, seeds, tmp_path / "c")
        estimates[seeds] = finetune_estimates(plan, Calibrator(plan, SilentDisplay()))
    assert [e.what for e in estimates[2]] == [
        "sts_bias on tiny-bert (seed 5): 6 steps",
        "sts_bias on tiny-bert (seed 6): 6 steps",
        "sts_bias on bert-dropout (seed 5): 6 steps (timed as its base tiny-bert)",
        "sts_bias on bert-dropout (seed 6): 6 steps (timed as its base tiny-bert)",
    ]
    total = {k: sum(e.seconds or 0.0 for e in v) for k, v in estimates.items()}
    assert total[1] > 0 and total[2] == pytest.approx(2 * total[1])


def test_the_run_does_the_planned_jobs_and_records_each_seed(
    run: tuple[RunOutcome, AuditPlan, dict[str, Any]],
) -> None:
    outcome, plan, _ = run
    result = outcome.result
    assert outcome.executed == plan.steps() == executed_steps(result)
    assert [r.model for r in result.extrinsic] == ["tiny-bert", "bert-dropout"]
    for record in result.extrinsic:
        assert [s.seed for s in record.seeds] == [5, 6]
        assert len({s.key for s in record.seeds}) == 2
        kept = [s.value for s in record.seeds if s.kept and s.value is not None]
        assert record.value == pytest.approx(float(np.mean(kept)))
        assert record.seed_min == min(kept) and record.seed_max == max(kept)
    again = AuditResult.model_validate_json(result.model_dump_json())
    assert again.extrinsic == result.extrinsic, "the seeds read back from results.json"


def test_the_studies_get_the_replicates(run: tuple[RunOutcome, AuditPlan, dict[str, Any]]) -> None:
    outcome, _, seen = run
    replicates = seen["extrinsic_replicates"]
    records = outcome.result.extrinsic
    assert set(replicates) == {(r.measure.key, r.dataset, r.model) for r in records}
    assert all(v.shape == (40,) for v in replicates.values())  # the spec's bootstrap: 40
    assert "replicates" not in outcome.result.model_dump_json()


def test_the_report_shows_the_spread_in_the_section_only(
    run: tuple[RunOutcome, AuditPlan, dict[str, Any]],
) -> None:
    from audit.report.build import build_report

    outcome = run[0]
    report = build_report(outcome.result, outcome.scores)
    (section,) = [s for s in report.variant_sections if s.id == "extrinsic"]
    table = section.tables[0]
    column = table.columns.index("Seeds")
    assert table.columns[column - 1] == "Value (CI)"
    assert len(table.rows) == len(outcome.result.extrinsic) == 2
    for row in table.rows:
        cell = row[column]
        assert "of 2 seeds" in cell.sub
        assert "seed 5: " in cell.note and "seed 6: " in cell.note
        assert "seed 5: " in row[table.columns.index("Checkpoint")].note
        assert "mean of" in row[column - 1].note
    assert "Seeds: a model fine-tuned with several seeds" in table.caption
    assert "mean over its kept seeds" in section.charts[0].caption

    # without seeds (one fine-tuning, or an older file) the section is as it was
    plain = outcome.result.model_copy(
        update={"extrinsic": [r.model_copy(update={"seeds": []}) for r in outcome.result.extrinsic]}
    )
    before = build_report(plain, outcome.scores)
    (old,) = [s for s in before.variant_sections if s.id == "extrinsic"]
    assert "Seeds" not in old.tables[0].columns
    assert "several seeds" not in old.tables[0].caption + old.charts[0].caption
    # page 1 is not one line longer
    assert report.summary.variants == before.summary.variants


def test_the_debiased_variant_is_compared_with_its_base_downstream(
    run: tuple[RunOutcome, AuditPlan, dict[str, Any]],
) -> None:
    """bert-dropout against tiny-bert on STS-bias: one record of the downstream family,
    its interval resampling the items and both models' 2 seeds, shown beside the
    intrinsic comparisons in the Variants section and counted on page 1."""
    from audit.report.build import build_report
    from audit.results.studies import DOWNSTREAM_FAMILY

    outcome = run[0]
    (record,) = [c for c in outcome.result.comparisons if c.test_family == DOWNSTREAM_FAMILY]
    assert (record.model_a, record.model_b) == ("bert-dropout", "tiny-bert")
    values = {r.model: r.value for r in outcome.result.extrinsic}
    assert record.value_a == values["bert-dropout"] and record.value_b == values["tiny-bert"]
    assert record.family_size == 1 and record.correction == "holm"
    assert "each model's fine-tuning seeds (2 and 2)" in record.note
    # these tiny models do not learn STS-B; the spec keeps such values, and the note says so
    assert "correlations.failed_dev_check: keep" in record.note
    intrinsic = [c for c in outcome.result.comparisons if c.test_family != DOWNSTREAM_FAMILY]
    assert intrinsic and all(c.scorer.name != "finetune" for c in intrinsic)
    report = build_report(outcome.result, outcome.scores)
    (variants,) = [s for s in report.variant_sections if s.id == "variants"]
    (table,) = [t for t in variants.tables if t.id == "debiasing-downstream"]
    (row,) = table.rows
    assert row[0].text == "bert-dropout" and row[-1].text == record.verdict
    assert report.summary.page_one is not None
    headings = [b.heading for b in report.summary.page_one.findings]
    assert "Debiasing, downstream." in headings
