"""Issue 8, acceptance 2: a toy measure and a toy built-in dataset added the documented
way (a module each plus one registration each) run through a spec end to end: the spec
validates, the audit computes the toy measure on the toy dataset, results.json carries
its values under its typed id and its card, the report shows it, and `audit list
measures` lists it."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from audit.data.catalog import DATASETS
from audit.display import SilentDisplay
from audit.engine import RunOutcome, RunSettings, run_audit
from audit.ids import PluginId
from audit.listing import describe_registry
from audit.measures.catalog import MEASURES, MeasureEntry, register_measure
from audit.report.render import write_reports
from audit.results import AuditResult, Measurement
from audit.results_io import read_results
from audit.spec.loader import load_spec
from tests import toy_measure
from tests.data import toy_builtin
from tests.models.tiny import save_tiny_gpt2

TOY = "toy_gap"
TITLE = "Toy mean score gap (scaled)"
TOY_ID = PluginId.of(TOY, {"scale": 2})
LL = PluginId.of("ll")

SPEC = f"""\
spec_version: 1
name: toy-plugins
seed: 3
bootstrap: 50
models:
  - id: tiny-gpt2
    source: {{path: models/gpt2}}
datasets: [{toy_builtin.ENTRY.name}]
scorers: {{causal: [ll]}}
measures: [bias_score, {{name: {TOY}, scale: 2}}]
robustness: {{rates: [1.0], repeats: 2}}
report: {{formats: [html]}}
"""


def register_toy_measure() -> MeasureEntry:
    """The one registration line a new measure adds to audit/measures/catalog.py."""
    return register_measure(
        name=TOY,
        title=TITLE,
        shape="pairs",
        roles=("intrinsic", "resamplable"),
        ideal_value=0.0,
        options=toy_measure.MeanGapOptions,
        target="tests.toy_measure:MEAN_GAP",
        what="scale * mean(f(S_st) - f(S_at)) over the pairs.",
        inputs="Pair set; any scorer.",
        direction="Positive: stereotypical sentences likelier on average.",
        ideal="0",
        citation="Written for the test.",
        limitations=("In score units.",),
    )


@pytest.fixture(scope="module")
def toy_plugins() -> Iterator[None]:
    entry = register_toy_measure()
    DATASETS.register(toy_builtin.ENTRY)  # the one registration line of a built-in dataset
    yield
    MEASURES.unregister(entry.name)
    DATASETS.unregister(toy_builtin.ENTRY.name)


@pytest.fixture(scope="module")
def toy_run(toy_plugins: None, tmp_path_factory: pytest.TempPathFactory) -> RunOutcome:
    root = tmp_path_factory.mktemp("toy")
    save_tiny_gpt2(root / "models" / "gpt2")
    folder = root / "data" / toy_builtin.ENTRY.folder
    folder.mkdir(parents=True)
    (folder / toy_builtin.FILE).write_bytes(toy_builtin.CONTENT)
    (root / "spec.yaml").write_text(SPEC)
    loaded = load_spec(root / "spec.yaml")
    assert [m.id for m in loaded.spec.measures] == [PluginId.of("bias_score"), TOY_ID]
    settings = RunSettings(
        out_dir=root / "out", cache_dir=root / "cache", data_dir=root / "data", device="cpu"
    )
    return run_audit(loaded, settings, SilentDisplay())


@pytest.fixture(scope="module")
def results(toy_run: RunOutcome) -> AuditResult:
    return read_results(toy_run.out_dir / "results.json")


def _toy_values(result: AuditResult) -> dict[str, Measurement]:
    return {m.group: m for m in result.measurements if m.measure.name == TOY}


def test_toy_measure_values_are_in_results_json_under_their_typed_id(
    results: AuditResult,
) -> None:
    values = _toy_values(results)
    assert set(values) == {"all", "gender", "age"}
    for m in values.values():
        assert m.measure == TOY_ID and m.measure.options == {"scale": 2}
        assert m.measure.label == "toy_gap[scale=2]"
        assert (m.model, m.dataset, m.scorer) == ("tiny-gpt2", "toy_pairs", LL)
        assert m.status == "ok" and m.details["scale"] == 2.0
    assert (values["all"].n, values["gender"].n, values["age"].n) == (3, 2, 1)
    # 3 pairs: below the minimum for a bootstrap interval, so none, with the reason
    assert values["all"].ci_low is None and values["all"].ci_high is None
    assert "too few items for an interval" in values["all"].note
    bias = [m for m in results.measurements if m.measure.name == "bias_score"]
    assert {m.group for m in bias} == {"all", "gender", "age"}


def test_toy_measure_value_is_the_mean_gap_of_scores_parquet(
    toy_run: RunOutcome, results: AuditResult
) -> None:
    scores = pd.read_parquet(toy_run.out_dir / "scores.parquet")
    rows = scores[(scores.dataset == "toy_pairs") & (scores.scorer == "ll")]
    assert sorted(rows.item_id.unique()) == ["a", "b", "c"]
    wide = rows.pivot(index="item_id", columns="side", values="score")
    gap = wide["st"] - wide["at"]  # ll: larger = likelier, no sign change
    assert gap.abs().min() > 0  # a random model still scores the two sentences differently
    values = _toy_values(results)
    assert values["all"].value == pytest.approx(2 * gap.mean(), rel=1e-9)
    assert values["gender"].value == pytest.approx(2 * gap[["a", "c"]].mean(), rel=1e-9)
    assert values["age"].value == pytest.approx(2 * gap["b"], rel=1e-9)
    assert values["all"].details["n_st_likelier"] == int((gap > 0).sum())
    bias = next(
        m for m in results.measurements if m.measure.name == "bias_score" and m.group == "all"
    )
    assert bias.value == pytest.approx(100 * (gap > 0).sum() / 3)


def test_toy_cards_are_in_result_plugins(results: AuditResult) -> None:
    card = results.card("measure", TOY)
    assert card is not None and card == MEASURES.entry(TOY).card
    assert card.title == TITLE and card.ideal_value == 0.0
    assert card.roles == ("intrinsic", "resamplable")
    dataset_card = results.card("dataset", toy_builtin.ENTRY.name)
    assert dataset_card == toy_builtin.ENTRY.card
    assert [d.name for d in results.datasets] == ["toy_pairs"]
    assert results.datasets[0].rows_kept == 3


def test_resamplable_toy_measure_joins_the_robustness_study(results: AuditResult) -> None:
    toy = [r for r in results.robustness if r.measure == TOY_ID]
    assert [(r.rate, r.scorer, r.dataset) for r in toy] == [(1.0, LL, "toy_pairs")]
    full = toy[0].models[0].full_value
    assert full is not None and math.isclose(full, _toy_values(results)["all"].value or 0)
    assert results.comparisons == []  # one model: nothing to compare


def test_report_renders_from_results_json_and_shows_the_toy_measure(
    toy_run: RunOutcome, results: AuditResult, tmp_path: Path
) -> None:
    written = write_reports(results, tmp_path, formats=["html"], scores_dir=toy_run.out_dir)
    assert [p.name for p in written] == ["report.html"]
    html = written[0].read_text()
    assert TITLE in html  # its card
    assert "Toy mean score gap[scale=2]" in html  # its overview column heading
    assert "toy_pairs" in html


def test_audit_list_measures_lists_the_toy(toy_plugins: None) -> None:
    listing = describe_registry("measures").splitlines()
    toy_line = next(line for line in listing if line.startswith(TOY))
    assert TITLE in toy_line and toy_line.endswith("[pairs; registered by tests.test_toy_plugins]")
    assert any(line.startswith("toy_pairs ") for line in describe_registry("datasets").splitlines())
    assert TITLE in describe_registry("measures", verbose=True)
