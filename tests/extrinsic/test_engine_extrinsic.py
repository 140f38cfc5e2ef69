"""Extrinsic tasks through the engine on tiny models: STS-bias fine-tuned on each model and
its variant, measured with a curve, correlated with the intrinsic measures across models,
cached for the next run; bad input stops the run before anything trains."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from audit.display import SilentDisplay
from audit.engine import RunOutcome, RunSettings, plan_audit, run_audit
from audit.errors import AuditUserError
from audit.extrinsic.catalog import EXTRINSIC_TASKS
from audit.extrinsic.planned import plan_extrinsic
from audit.extrinsic.settings import ExtrinsicSpec
from audit.spec.loader import load_spec
from tests.models.tiny import save_tiny_bert, save_tiny_gpt2

SPEC = """\
spec_version: 1
name: extrinsic-test
seed: 5
bootstrap: 40
models:
  - {{id: tiny-gpt2, source: {{path: models/gpt2}}}}
  - {{id: tiny-bert, source: {{path: models/bert}}}}
datasets:
  - {{name: crows_pairs, limit: 16}}
scorers: {{masked: [cps], causal: [ll]}}
measures: [bias_score]
correlations: {{failed_dev_check: keep}}
variants:
  - id: bert-dropout
    base: tiny-bert
    method: dropout
    corpus: {{path: corpus.txt}}
    training: {{steps: 2, batch_size: 4, max_length: 16}}
lm_quality: {{enabled: false}}
extrinsic:
  - task: sts_bias
    options: {{max_templates: 6, occupations_file: occupations.tsv}}
    finetune: {{steps: 6, batch_size: 8, max_length: 32, checkpoint_every: 3,
               learning_rate: 1.0e-3}}
{models}report: {{formats: []}}
"""
OCCUPATIONS = "occupation\tbls_pct_female\nnurse\t89.9\nengineer\t11.0\nteacher\t70.0\nchef\t20.0\n"


def sts_folder(shared: Path, out: Path, *, test_rows: int | None = None) -> None:
    """A small STS-B copy: 48 train and 24 dev rows, the test split (or its first rows)."""
    out.mkdir(parents=True)
    for split, keep in (("train", 48), ("dev", 24), ("test", test_rows)):
        lines = (shared / "sts_b" / f"sts-{split}.tsv").read_text(encoding="utf-8").splitlines()
        (out / f"sts-{split}.tsv").write_text("\n".join(lines[:keep]) + "\n", encoding="utf-8")


def make_spec_dir(
    root: Path, shared: Path, *, models_line: str = "", test_rows: int | None = None
) -> Path:
    save_tiny_gpt2(root / "models" / "gpt2")
    save_tiny_bert(root / "models" / "bert")
    data = root / "data"
    sts_folder(shared, data / "sts_b", test_rows=test_rows)
    shutil.copytree(shared / "wordlists", data / "wordlists")
    shutil.copytree(shared / "crows_pairs", data / "crows_pairs")
    shutil.copytree(shared / "winogender", data / "winogender")
    (data / "occupations.tsv").write_text(OCCUPATIONS)
    (root / "corpus.txt").write_text("he is a nurse .\nshe is a doctor .\nthe man sat .\n" * 4)
    (root / "spec.yaml").write_text(SPEC.format(models=models_line))
    return root


def settings_for(root: Path, cache: Path, out: str = "out") -> RunSettings:
    return RunSettings(out_dir=root / out, cache_dir=cache, data_dir=root / "data", device="cpu")


@pytest.fixture(scope="module")
def runs(
    tmp_path_factory: pytest.TempPathFactory, shared_data: Path
) -> tuple[RunOutcome, RunOutcome]:
    root = make_spec_dir(tmp_path_factory.mktemp("extrinsic"), shared_data)
    cache = tmp_path_factory.mktemp("cache")
    first = run_audit(load_spec(root / "spec.yaml"), settings_for(root, cache), SilentDisplay())
    second = run_audit(
        load_spec(root / "spec.yaml"), settings_for(root, cache, "out2"), SilentDisplay()
    )
    return first, second


def test_each_model_and_variant_is_fine_tuned_and_measured(
    runs: tuple[RunOutcome, RunOutcome],
) -> None:
    result = runs[0].result
    records = result.extrinsic
    assert [r.model for r in records] == ["tiny-gpt2", "tiny-bert", "bert-dropout"]
    for r in records:
        assert r.task == "sts_bias" and r.dataset == "sts_b" and not r.cached
        assert r.value is not None and r.value >= 0
        assert r.n == 6 * 4 and r.detail.n_templates == 6  # type: ignore[union-attr]
        assert [p.step for p in r.curve] == [3, 6]
        assert [e.step for e in r.finetune.evaluations] == [3, 6], "dev at every checkpoint"
        assert [p.dev for p in r.curve] == [e.pearson for e in r.finetune.evaluations]
        chosen = r.chosen_checkpoint
        assert chosen is not None and chosen.rule == "best_dev" and chosen.scored == 2
        devs = {p.step: p.dev for p in r.curve if p.dev is not None}
        assert chosen.dev == max(devs.values())
        assert chosen.step == min(s for s, v in devs.items() if v == chosen.dev)
        at_chosen = next(p for p in r.curve if p.step == chosen.step)
        assert at_chosen.value == pytest.approx(r.value), "measured at the chosen checkpoint"
        assert r.dev_check is not None and r.dev_check.metric == "pearson"
        assert r.dev_check.value == chosen.dev
        assert r.dev_check.n == 24 and r.dev_check.floor == 0.5
        assert r.finetune.pooling == ("last" if r.model == "tiny-gpt2" else "cls")
    # stored once: in `extrinsic`, never again as measurements
    assert not [m for m in result.measurements if m.measure.name == "sts_bias"]
    assert not [m for m in result.measurements if m.scorer.name == "finetune"]
    assert any(c.kind == "extrinsic_task" and c.name == "sts_bias" for c in result.plugins)


def test_extrinsic_is_correlated_with_intrinsic_measures(
    runs: tuple[RunOutcome, RunOutcome],
) -> None:
    result = runs[0].result
    pairs = [
        c
        for c in result.correlations
        if {c.x.measure.name, c.y.measure.name} == {"sts_bias", "bias_score"}
    ]
    # one row per scorer: cps over tiny-bert and its variant (ll has tiny-gpt2 alone)
    assert [(c.x.scorer.label if c.x.scorer else "", c.models) for c in pairs] == [
        ("cps", ["tiny-bert", "bert-dropout"])
    ]
    assert all(c.n == 2 and not c.conclusive and c.model_types == ["masked"] for c in pairs)
    # the spec keeps the models whose tiny fine-tuning failed the dev check, and says so
    failed = [r.model for r in result.extrinsic if r.dev_check and not r.dev_check.passed]
    assert pairs[0].failed_kept == [m for m in pairs[0].models if m in failed]
    assert pairs[0].excluded == []
    assert result.audit.correlations is not None
    assert result.audit.correlations.failed_dev_check == "keep"


def test_second_run_fine_tunes_nothing_and_gives_the_same_numbers(
    runs: tuple[RunOutcome, RunOutcome],
) -> None:
    first, second = (run.result.extrinsic for run in runs)
    assert all(r.cached for r in second)
    assert [(r.value, r.ci_low, r.ci_high, r.key) for r in second] == [
        (r.value, r.ci_low, r.ci_high, r.key) for r in first
    ]
    assert [r.curve for r in second] == [r.curve for r in first]


def test_models_option_takes_a_base_and_its_variants(tmp_path: Path, shared_data: Path) -> None:
    root = make_spec_dir(tmp_path, shared_data, models_line="    models: [tiny-bert]\n")
    prepared = plan_audit(
        load_spec(root / "spec.yaml"), settings_for(root, tmp_path / "c"), SilentDisplay()
    )
    assert prepared.extrinsic[0].models == ("tiny-bert", "bert-dropout")


def test_missing_sts_file_stops_before_training(tmp_path: Path, shared_data: Path) -> None:
    root = make_spec_dir(tmp_path, shared_data)
    (root / "data" / "sts_b" / "sts-dev.tsv").unlink()
    with pytest.raises(AuditUserError, match=r"extrinsic\[0\] \(sts_bias\): .*sts-dev.tsv"):
        run_audit(
            load_spec(root / "spec.yaml"), settings_for(root, tmp_path / "c"), SilentDisplay()
        )
    assert not (tmp_path / "c" / "variants").exists()
    assert not (tmp_path / "c" / "extrinsic").exists()


def test_too_few_templates_stops_before_training(tmp_path: Path, shared_data: Path) -> None:
    root = make_spec_dir(tmp_path, shared_data, test_rows=5)
    with pytest.raises(AuditUserError, match="at least 5 are needed"):
        run_audit(
            load_spec(root / "spec.yaml"), settings_for(root, tmp_path / "c"), SilentDisplay()
        )
    assert not (tmp_path / "c" / "variants").exists()


def test_unsupported_model_type_stops_before_training(
    tmp_path: Path, shared_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dataclasses import replace

    entry = EXTRINSIC_TASKS.entry("sts_bias")
    masked_only = replace(entry, model_types=frozenset({"masked"}))
    monkeypatch.setitem(EXTRINSIC_TASKS._entries, "sts_bias", masked_only)
    root = make_spec_dir(tmp_path, shared_data)
    with pytest.raises(AuditUserError, match="model 'tiny-gpt2' is a causal LM; task 'sts_bias'"):
        run_audit(
            load_spec(root / "spec.yaml"), settings_for(root, tmp_path / "c"), SilentDisplay()
        )


def test_no_data_folder_is_a_clear_error() -> None:
    spec = ExtrinsicSpec(task="sts_bias")
    with pytest.raises(AuditUserError, match="--data-dir"):
        plan_extrinsic([spec], model_types={"m": "masked"}, variants_of={}, data_dir=None, seed=0)


def test_report_shows_the_extrinsic_section_and_page_one(
    runs: tuple[RunOutcome, RunOutcome],
) -> None:
    from audit.report.build import build_report

    outcome = runs[0]
    report = build_report(outcome.result, outcome.scores)
    (section,) = [s for s in report.variant_sections if s.id == "extrinsic"]
    assert [t.id for t in section.tables] == [
        "extrinsic-table",
        "intrinsic-extrinsic",
        "extrinsic-occupations",
    ]
    table = section.tables[0]
    assert len(table.rows) == 3 and table.rows[2][0].sub.startswith("dropout")
    column = table.columns.index("Checkpoint")
    for row, record in zip(table.rows, outcome.result.extrinsic, strict=True):
        chosen = record.chosen_checkpoint
        assert chosen is not None
        assert row[column].text == f"{chosen.step} of 6" and row[column].note == chosen.reason
    corr = section.tables[1]
    assert "No test was computed: too few models with both values." in corr.caption
    assert all("too few models" in cell.note for row in corr.rows for cell in row[1:])
    assert [c.id for c in section.charts] == ["extrinsic-curve-sts_bias"]
    occupations = section.tables[2]
    assert [row[0].text for row in occupations.rows] == ["engineer", "chef", "teacher", "nurse"]
    page_one = [b.heading for b in report.summary.variants]
    assert "Extrinsic bias." in page_one and "Intrinsic vs extrinsic." in page_one
    (sentence,) = [
        b.text for b in report.summary.variants if b.heading == "Intrinsic vs extrinsic."
    ]
    assert "too few models" in sentence


def test_plan_says_which_fine_tunings_are_cached(
    runs: tuple[RunOutcome, RunOutcome], tmp_path: Path, shared_data: Path
) -> None:
    from audit.pipeline.plan_text import describe_extrinsic

    root = make_spec_dir(tmp_path, shared_data)
    cache = tmp_path / "c"
    fresh = plan_audit(load_spec(root / "spec.yaml"), settings_for(root, cache), SilentDisplay())
    lines = describe_extrinsic(fresh)
    assert lines[0] == "Extrinsic tasks:"
    assert "regression head on 48 examples, 6 steps x 8 (1 epoch)" in lines[1]
    assert lines[1].endswith("measured at the best dev checkpoint):")
    assert lines[2].startswith("    tiny-gpt2: to fine-tune (key ")
    assert lines[4] == "    bert-dropout: to fine-tune once the variant is trained"
    first = runs[0].result.extrinsic
    assert lines[2].endswith(f"(key {first[0].key[:8]})"), "the key the run used"


def test_plan_warns_about_a_budget_below_one_epoch(tmp_path: Path, shared_data: Path) -> None:
    from audit.pipeline.plan_text import describe_extrinsic

    root = make_spec_dir(tmp_path, shared_data)
    spec = root / "spec.yaml"
    spec.write_text(spec.read_text().replace("steps: 6, batch_size: 8", "steps: 3, batch_size: 8"))
    planned = plan_audit(load_spec(spec), settings_for(root, tmp_path / "c"), SilentDisplay())
    lines = describe_extrinsic(planned)
    assert "3 steps x 8 (0.5 epochs)" in lines[1]
    assert lines[2].startswith(
        "    warning: finetune.steps: fine-tuning budget too small: 3 steps x 8 of 48 training "
        "examples are 50% of an epoch"
    )
    assert "give at least 6 steps (one epoch)" in lines[2]
    assert lines[3].startswith("    tiny-gpt2: to fine-tune (key ")
