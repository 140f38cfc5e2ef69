"""Issue 18, item 5: a plug-in package installed for real (pip, into a folder of its own)
is found through the `bias_audit.plugins` entry point; `audit run` computes its measure
on its dataset and `audit list` says where both come from."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from tests.models.tiny import save_tiny_gpt2
from tests.plugins.installed import PACKAGE, TINY_ORIGIN, install_tiny_plugin, run_audit_command

SPEC = """\
spec_version: 1
name: tiny-plugin
seed: 3
bootstrap: 50
models:
  - id: tiny-gpt2
    source: {path: models/gpt2}
datasets: [tiny_pairs]
scorers: {causal: [ll]}
measures: [bias_score, tiny_median_gap]
report: {formats: [html]}
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return install_tiny_plugin(tmp_path_factory.mktemp("tiny-plugin"))


@pytest.fixture(scope="module")
def run_dir(site: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tiny-run")
    save_tiny_gpt2(root / "models" / "gpt2")
    (root / "data" / "tiny_pairs").mkdir(parents=True)
    shutil.copy(PACKAGE / "data" / "tiny_pairs.tsv", root / "data" / "tiny_pairs")
    (root / "spec.yaml").write_text(SPEC)
    done = run_audit_command(
        site,
        "run",
        str(root / "spec.yaml"),
        "--out",
        str(root / "out"),
        "--data-dir",
        str(root / "data"),
        "--cache-dir",
        str(root / "cache"),
        "--device",
        "cpu",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return root / "out"


def _measurements(out: Path, name: str) -> dict[str, dict[str, Any]]:
    results = json.loads((out / "results.json").read_text())
    return {m["group"]: m for m in results["measurements"] if m["measure"]["name"] == name}


def test_the_plugin_measure_runs_on_the_plugin_dataset(run_dir: Path) -> None:
    values = _measurements(run_dir, "tiny_median_gap")
    assert set(values) == {"all", "gender", "age"}
    assert {m["dataset"] for m in values.values()} == {"tiny_pairs"}
    assert all(m["status"] == "ok" for m in values.values())
    assert (values["all"]["n"], values["gender"]["n"], values["age"]["n"]) == (4, 3, 1)
    # its value is the median gap of the scores the run wrote
    scores = pd.read_parquet(run_dir / "scores.parquet")
    rows = scores[(scores.dataset == "tiny_pairs") & (scores.scorer == "ll")]
    wide = rows.pivot(index="item_id", columns="side", values="score")
    gap = wide["st"] - wide["at"]  # ll: larger = likelier
    assert sorted(gap.index) == ["a", "b", "c", "d"]
    assert values["all"]["value"] == pytest.approx(float(np.median(gap)), rel=1e-9)
    assert values["gender"]["value"] == pytest.approx(float(np.median(gap[["a", "c", "d"]])))
    assert values["age"]["value"] == pytest.approx(float(gap["b"]))
    assert values["all"]["details"]["n_st_likelier"] == int((gap > 0).sum())
    # the built-in measure ran beside it on the same dataset
    assert _measurements(run_dir, "bias_score")["all"]["n"] == 4


def test_results_json_carries_the_plugin_cards(run_dir: Path) -> None:
    results = json.loads((run_dir / "results.json").read_text())
    cards = {(c["kind"], c["name"]): c for c in results["plugins"]}
    assert cards["measure", "tiny_median_gap"]["title"] == "Median score gap (tiny plug-in)"
    assert cards["dataset", "tiny_pairs"]["shape"] == "pairs"
    assert "Median score gap (tiny plug-in)" in (run_dir / "report.html").read_text()


def test_audit_list_says_where_each_plugin_comes_from(site: Path) -> None:
    listed = run_audit_command(site, "list")
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    gap = next(line for line in lines if line.strip().startswith("tiny_median_gap "))
    assert gap.endswith(f"[pairs; {TINY_ORIGIN}]")
    pairs = next(line for line in lines if line.strip().startswith("tiny_pairs "))
    assert pairs.endswith(f"[pairs; {TINY_ORIGIN}]")
    bias = next(line for line in lines if line.strip().startswith("bias_score "))
    assert bias.endswith("[pairs; built-in]")
    verbose = run_audit_command(site, "list", "measures", "-v")
    assert f"Origin: {TINY_ORIGIN}" in verbose.stdout


def test_without_the_plugin_installed_its_names_are_unknown(tmp_path: Path) -> None:
    empty = tmp_path / "empty-site"
    empty.mkdir()
    listed = run_audit_command(empty, "list", "measures")
    assert listed.returncode == 0 and "tiny_median_gap" not in listed.stdout
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC.replace("path: models/gpt2", "hf: gpt2"))
    checked = run_audit_command(empty, "validate", str(spec))
    assert checked.returncode == 2
    assert "unknown measure 'tiny_median_gap'" in checked.stderr
