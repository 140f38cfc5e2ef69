"""The template score (TBS) from a spec: it runs on the professions list, is skipped with
a reason elsewhere, and equals the TBS function called directly."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.data.loader import load_dataset
from audit.data.request import DatasetRequest
from audit.display import SilentDisplay
from audit.engine import RunSettings, run_audit
from audit.models.load import load_model
from audit.scoring.masked.tbs import TemplateProbe, score_templates
from audit.scoring.options import TBSOptions
from audit.spec.loader import load_spec
from audit.spec.models import ModelSpec
from tests.models.tiny import save_tiny_bert

TEMPLATES = ("[TARGET] is a/an [ATTRIBUTE].", "[TARGET] works as a/an [ATTRIBUTE].")


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory, shared_data: Path):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("tbs")
    save_tiny_bert(root / "bert")
    (root / "spec.yaml").write_text(
        "spec_version: 1\nname: tbs\nbootstrap: 100\n"
        "models: [{id: bert, source: {path: bert}}]\n"
        "datasets: [{name: professions, limit: 12}, {name: crows_pairs, limit: 4}]\n"
        f"scorers: {{masked: [{{name: tbs, templates: {list(TEMPLATES)}}}, pll]}}\n"
        "measures: [bias_score]\n"
    )
    settings = RunSettings(
        out_dir=root / "out", cache_dir=root / "cache", data_dir=shared_data, device="cpu"
    )
    return run_audit(load_spec(root / "spec.yaml"), settings, SilentDisplay()), root


def test_tbs_runs_on_template_items_only(outcome) -> None:  # type: ignore[no-untyped-def]
    result, _ = outcome
    units = {(u.dataset, u.scorer.name) for u in result.result.units}
    assert ("professions", "tbs") in units and ("professions", "pll") in units
    (skipped,) = result.result.skipped_units
    assert (skipped.dataset, skipped.scorer.name) == ("crows_pairs", "tbs")
    assert "professions" in skipped.reason
    bias = [
        m
        for m in result.result.measurements
        if m.dataset == "professions" and m.scorer.name == "tbs" and m.group == "all"
    ]
    assert len(bias) == 1 and bias[0].n == 12


def test_tbs_scores_equal_the_function_averaged_over_templates(outcome, shared_data: Path) -> None:  # type: ignore[no-untyped-def]
    result, root = outcome
    rows = result.scores[result.scores.scorer == "tbs"]
    assert (rows["n_tokens"] == 1).all()
    item_id = rows.item_id.iloc[0]
    dataset = load_dataset(
        DatasetRequest(name="professions"), data_dir=shared_data, cache_dir=root / "cache"
    )
    probe = next(i.probe for i in dataset.pair_items() if i.item_id == item_id)
    assert probe is not None
    model = load_model(
        ModelSpec.model_validate({"id": "bert", "source": {"path": str(root / "bert")}}),
        cache_dir=root / "cache",
        device="cpu",
    )
    direct = score_templates(
        model,
        [TemplateProbe(t, ("he", "she"), (probe.attribute,)) for t in TEMPLATES],
        options=TBSOptions(templates=TEMPLATES),
        progress=lambda _n: None,
    )
    mean = {
        target: sum(s.score for s in direct if s.target == target) / len(TEMPLATES)
        for target in ("he", "she")
    }
    side = rows[rows.item_id == item_id].set_index("side")["score"]
    assert side["st"] == pytest.approx(mean[probe.target_st], abs=1e-9)
    assert side["at"] == pytest.approx(mean[probe.target_at], abs=1e-9)
