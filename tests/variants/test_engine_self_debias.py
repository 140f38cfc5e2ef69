"""Self-Debias through the engine on a tiny causal LM (ll) and a tiny masked LM (cps),
with short prefixes of one's own (bias-bench's take 40-odd tokens of the tiny models'
vocabularies, more than their positions allow next to a CrowS-Pairs sentence):
nothing is trained and no corpus is read, the variant is audited beside its base with
its language-modelling cost, `audit plan` says what it costs, and a second run reads it
from the store."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from audit.display import SilentDisplay
from audit.engine import RunOutcome, plan_audit
from audit.errors import AuditUserError
from audit.pipeline.plan_text import describe_plan
from audit.spec.loader import load_spec
from tests.models.tiny import save_tiny_bert, save_tiny_gpt2
from tests.variants.engine_runs import cpu_settings, first_audit, run_again_making_nothing

SPEC = """\
spec_version: 1
name: self-debias-test
seed: 3
bootstrap: 50
models:
  - {id: tiny-gpt2, source: {path: models/gpt2}}
  - {id: tiny-bert, source: {path: models/bert}}
datasets:
  - {name: crows_pairs, limit: 24}
scorers: {masked: [cps], causal: [ll]}
measures: [bias_score, {name: seat, tests: [weat6], n_samples: 200}]
lm_quality: {text: {path: heldout.txt}}
variants:
  - id: gpt2-sd
    base: tiny-gpt2
    method: self_debias
    options: {prefixes: ["The text is sexist: "]}
  - id: bert-sd
    base: tiny-bert
    method: self_debias
    options: {prefixes: ["sexist text:", "racist text:"], compat: reference}
report: {formats: []}
"""


@pytest.fixture(scope="module")
def spec_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("selfdebias")
    save_tiny_gpt2(root / "models" / "gpt2")
    save_tiny_bert(root / "models" / "bert")
    (root / "spec.yaml").write_text(SPEC)
    (root / "heldout.txt").write_text("the cat sat on the mat .\nit rained all day .\n" * 6)
    return root


@pytest.fixture(scope="module")
def first_run(
    spec_dir: Path, tmp_path_factory: pytest.TempPathFactory, shared_data: Path
) -> tuple[RunOutcome, Path]:
    return first_audit(spec_dir, tmp_path_factory, shared_data)


def test_plan_says_nothing_is_trained(spec_dir: Path, tmp_path: Path, shared_data: Path) -> None:
    loaded = load_spec(spec_dir / "spec.yaml")
    text = describe_plan(
        plan_audit(loaded, cpu_settings(tmp_path / "o", tmp_path, shared_data), SilentDisplay())
    )
    assert "0 steps" not in text
    assert "  gpt2-sd: causal LM, a variant of tiny-gpt2 stored by this run" in text
    assert (
        "of tiny-gpt2: not trained, applied at scoring time: 1 debiasing prefix, lambda 50; "
        "each scored row runs 2 times (plain + prefixed): to store" in text
    )
    assert "of tiny-bert: not trained, applied at scoring time: 2 debiasing prefixes" in text


def test_self_debias_variants_are_audited_beside_their_base(
    first_run: tuple[RunOutcome, Path], spec_dir: Path
) -> None:
    result = first_run[0].result
    out = spec_dir / "out1"
    assert [m.id for m in result.models] == ["tiny-gpt2", "gpt2-sd", "tiny-bert", "bert-sd"]
    variants = {v.id: v for v in result.variants}
    assert all(v.summary.steps == 0 and v.summary.examples == 0 for v in variants.values())
    assert {v.corpus for v in variants.values()} == {"none"}
    assert all(v.probe is not None for v in variants.values())  # he/she probe, rescaled
    assert all(v.training == {} for v in variants.values())  # no training setting applies
    assert result.corpora == []
    measured = {m.model for m in result.measurements if m.measure.name == "bias_score"}
    assert measured == {"tiny-gpt2", "gpt2-sd", "tiny-bert", "bert-sd"}
    scores = pd.read_parquet(out / "scores.parquet")
    by_model = {
        model: frame.sort_values(["item_id", "side"])["score"].to_numpy()
        for model, frame in scores.groupby("model", observed=True)
    }
    for variant, base in (("gpt2-sd", "tiny-gpt2"), ("bert-sd", "tiny-bert")):
        assert len(by_model[variant]) == len(by_model[base]) == 48
        assert not np.allclose(by_model[variant], by_model[base])  # rescaled
    assert result.lm_quality is not None
    costs = {r.variant: r for r in result.lm_quality.records}
    assert set(costs) == {"gpt2-sd", "bert-sd"}
    assert costs["gpt2-sd"].base == "tiny-gpt2" and costs["bert-sd"].base == "tiny-bert"
    assert all(r.ratio != 1.0 for r in costs.values())


def test_seat_skips_the_variants_with_the_reason(first_run: tuple[RunOutcome, Path]) -> None:
    from audit.pipeline.seat_plan import OUTPUT_ONLY_REASON

    seat = first_run[0].result.seat
    assert seat is not None
    assert sorted({r.model for r in seat.tests}) == ["tiny-bert", "tiny-gpt2"]
    reason = OUTPUT_ONLY_REASON.format(method="self_debias")
    assert sorted((s.model, s.reason) for s in seat.skipped) == [
        ("bert-sd", reason),
        ("gpt2-sd", reason),
    ]


def test_the_settings_are_stored_with_the_variant(first_run: tuple[RunOutcome, Path]) -> None:
    from audit.models.self_debias import SELF_DEBIAS_FILE

    stored = sorted(first_run[1].glob(f"variants/*/model/{SELF_DEBIAS_FILE}"))
    assert len(stored) == 2
    settings = [json.loads(p.read_text()) for p in stored]
    assert sorted(len(s["prefixes"]) for s in settings) == [1, 2]
    assert sorted(s["epsilon"] for s in settings) == [0.0, 0.01]
    fingerprints = [m.fingerprint for m in first_run[0].result.models]
    assert len(set(fingerprints)) == 4  # the settings file is part of the fingerprint


def test_second_run_stores_nothing(
    first_run: tuple[RunOutcome, Path],
    spec_dir: Path,
    shared_data: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first, cache = first_run
    settings = cpu_settings(spec_dir / "out2", cache, shared_data)
    run_again_making_nothing(
        first, spec_dir / "spec.yaml", settings, monkeypatch, step="_store_scoring_time"
    )


def test_a_corpus_is_refused(spec_dir: Path, tmp_path: Path, shared_data: Path) -> None:
    text = SPEC.replace("method: self_debias\n", "method: self_debias\n    corpus: sts_b\n", 1)
    text = text.replace("path: models/", f"path: {spec_dir}/models/")
    text = text.replace("path: heldout.txt", f"path: {spec_dir}/heldout.txt")
    (tmp_path / "spec.yaml").write_text(text)
    with pytest.raises(AuditUserError, match=r"variants\[0\]\.corpus.*reads no corpus"):
        plan_audit(
            load_spec(tmp_path / "spec.yaml"),
            cpu_settings(tmp_path / "o", tmp_path, shared_data),
            SilentDisplay(),
        )


def test_spec_check_names_the_corpus_and_option_problems(tmp_path: Path) -> None:
    from audit.spec.problems import SpecError

    (tmp_path / "spec.yaml").write_text(
        "spec_version: 1\nname: x\nmodels:\n  - {id: m, source: {path: models/bert}}\n"
        "datasets:\n  - {name: crows_pairs, limit: 4}\nmeasures: [bias_score]\nvariants:\n"
        "  - {id: v, base: m, method: cda}\n"
        "  - {id: w, base: m, method: self_debias, corpus: sts_b, options: {decay: -2}}\n"
    )
    with pytest.raises(SpecError) as error:
        load_spec(tmp_path / "spec.yaml")
    text = str(error.value)
    assert "variants[0].corpus: method cda trains on a corpus and none is given" in text
    assert "variants[1].corpus: method self_debias reads no corpus" in text
    assert "variants[1].options.decay" in text and "at least 0" in text


def test_report_does_not_call_them_briefly_trained(first_run: tuple[RunOutcome, Path]) -> None:
    """0 steps means not trained: the small-variants caveat (a training budget) is not
    raised for them, and the Variants section says how they were derived."""
    from audit.report.build import build_report

    report = build_report(first_run[0].result)
    assert "small-variants" not in {c.id for c in report.caveats}
