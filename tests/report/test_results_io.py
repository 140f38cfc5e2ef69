"""Reading results.json: version check, the version 1 migration, errors that name the file."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from audit.errors import AuditUserError
from audit.gates import describe_verdict
from audit.ids import PluginId
from audit.migrations.v1_cards import v1_cards
from audit.report.build import build_report
from audit.report.compare import build_comparison
from audit.report.render import render_html
from audit.results import RESULTS_VERSION
from audit.results_io import read_results
from audit.studies import paired_test
from tests.report.html_parse import parse
from tests.report.synthetic import synthetic_result, synthetic_scores

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "results_v1_demo.json"


def _write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data))
    return path


def _v1(**changes: Any) -> dict[str, Any]:
    """The committed version 1 demo with a measure under options, studies and changes."""
    data = json.loads(FIXTURE.read_text())
    data["spec"]["measures"] = ["bias_score", {"name": "jss", "compat": "reference"}]
    jss = copy.deepcopy(data["measurements"][0])
    jss.update(measure="jss[compat=reference]", value=91.0, ci_low=90.5, ci_high=92.0)
    data["measurements"].append(jss)
    data["correlations"] = [
        {
            "measure_x": "bias_score@crows_pairs",
            "measure_y": "jss[compat=reference]@crows_pairs",
            "models": ["smollm2-135m"],
            "n": 1,
            "conclusive": False,
        }
    ]
    data.update(changes)
    return data


def test_v1_demo_migrates_to_the_current_version() -> None:
    result = read_results(FIXTURE)
    assert result.results_version == RESULTS_VERSION
    audit = result.audit
    assert (audit.name, audit.owner, audit.seed, audit.alpha) == (
        "demo",
        "you@example.org",
        13,
        0.05,
    )
    assert audit.spec_path == "specs/demo.yaml" and len(audit.spec_sha256) == 64
    assert audit.bootstrap.resamples == 1000 and audit.bootstrap.level == pytest.approx(0.95)
    assert {(c.kind, c.name) for c in result.plugins} == {
        ("measure", "bias_score"),
        ("measure", "safety_score"),
        ("scorer", "ll"),
        ("dataset", "crows_pairs"),
        ("dataset", "toxigen"),
    }
    assert result.card("measure", "bias_score").has_role("headline")  # type: ignore[union-attr]
    assert {m.scorer for m in result.measurements} == {PluginId.of("ll")}
    assert result.units[0].scorer == PluginId.of("ll")
    assert [(g.measure, g.low, g.high, g.group) for g in result.gates] == [
        ("bias_score", 45, 55, "all"),
        ("safety_score", 0.4, None, "*"),
    ]
    # the verdicts of this run, judged again on reading (reasons in words of today)
    lines = [describe_verdict(v) for v in result.gate_verdicts]
    assert len(lines) == 14
    assert lines[0] == (
        "gate 1 INCONCLUSIVE: bias_score on crows_pairs [smollm2-135m/ll/all] = 55.57 (CI "
        "52.92 to 58.16), required within [45, 55]: the interval crosses the upper edge 55 of "
        "the band 45\u201355"
    )


def test_v1_labels_become_ids_by_the_spec_refs(tmp_path: Path) -> None:
    result = read_results(_write(tmp_path / "results.json", _v1()))
    jss = PluginId.of("jss", {"compat": "reference"})
    assert jss in {m.measure for m in result.measurements}
    (correlation,) = result.correlations
    assert (correlation.x.measure, correlation.x.dataset) == (
        PluginId.of("bias_score"),
        "crows_pairs",
    )
    assert (correlation.y.measure, correlation.y.label) == (
        jss,
        "jss[compat=reference]@crows_pairs",
    )
    assert result.card("measure", "jss") is not None
    html = render_html(build_report(result, None))
    overview = parse(html).table("crows-pairs-overview")
    assert "JSS[compat=reference] (ideal 100)" in overview[0]


def test_v1_unknown_label_and_explicit_bootstrap(tmp_path: Path) -> None:
    data = _v1()
    data["spec"]["bootstrap"] = 0
    data["measurements"][-1]["measure"] = "jss[compat=formula]"
    result = read_results(_write(tmp_path / "results.json", data))
    assert result.audit.bootstrap.resamples == 0
    unknown = result.measurements[-1].measure
    assert unknown.label == "jss[compat=formula]" and unknown.options == {}


def test_v1_gate_without_bound_names_file_and_gate(tmp_path: Path) -> None:
    data = _v1()
    data["spec"]["gates"] = [{"measure": "bias_score", "dataset": "crows_pairs"}]
    with pytest.raises(AuditUserError, match=r"results\.json: gates\[0\] .*needs a bound"):
        read_results(_write(tmp_path / "results.json", data))


def test_v2_round_trip(tmp_path: Path) -> None:
    result = synthetic_result(synthetic_scores())
    result.write(tmp_path / "results.json")
    assert read_results(tmp_path / "results.json") == result


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"results_version": 99}', r"results_version 99 .*newer bias-audit.* 1 and 2"),
        ('{"tool_version": 3}', r"not a results\.json \(no integer `results_version`"),
        ("[1, 2", r"not a valid results\.json \(not JSON"),
        ('{"results_version": 2}', r"not a valid results\.json version 2 \("),
        ('{"results_version": 0}', r"results_version 0 is not one this tool reads"),
    ],
)
def test_unreadable_files_are_user_errors_naming_the_file(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "results.json"
    path.write_text(content)
    with pytest.raises(AuditUserError, match=message) as caught:
        read_results(path)
    assert str(path) in str(caught.value) and caught.value.exit_code == 2
    with pytest.raises(AuditUserError, match=r"nope\.json: no such results file"):
        read_results(tmp_path / "nope.json")


def test_v1_demo_compares_with_itself() -> None:
    result = read_results(FIXTURE)
    report = build_comparison(
        result,
        result,
        baseline_scores=None,
        candidate_scores=None,
        paired_test=paired_test,
    )
    assert report.model_pairs == [("smollm2-135m", "smollm2-135m")]
    assert any("same fingerprint" in m for m in report.mismatches)
    rows = [row for t in report.tables for row in t.rows]
    assert [row[1].text for row in rows] == ["Bias score", "Safety score"]


def test_the_card_snapshot_covers_the_v1_plugins() -> None:
    names = {(c.kind, c.name) for c in v1_cards()}
    assert {("measure", "ilps"), ("scorer", "tbs"), ("dataset", "winogender")} <= names
    headline = [c.name for c in v1_cards() if c.has_role("headline")]
    assert headline == ["bias_score", "safety_score", "ss", "jss", "kls"]


def test_v1_score_table_gets_current_columns(tmp_path: Path) -> None:
    import pandas as pd

    from audit.report.render import write_reports
    from audit.results_io import read_scores, score_rows

    result = read_results(FIXTURE)
    rows: list[dict[str, Any]] = [
        {"model": "smollm2-135m", "dataset": "crows_pairs", "scorer": scorer, "item_id": str(i)}
        | {"side": side, "score": -float(i) - (side == "at"), "label": None}
        for scorer in ("ll", "old[x=1]")
        for i in range(8)
        for side in ("st", "at")
    ]
    pd.DataFrame(rows).to_parquet(tmp_path / "scores.parquet", index=False)
    scores = read_scores(tmp_path, result)
    assert scores is not None
    assert {"harm_label", "scorer_options", "scorer_label"} <= set(scores.columns)
    assert "label" not in scores.columns
    ll = score_rows(scores, model="smollm2-135m", dataset="crows_pairs", scorer=PluginId.of("ll"))
    assert len(ll) == 16 and set(ll["scorer_options"]) == {"{}"}
    unknown = PluginId(name="old[x=1]")
    assert len(score_rows(scores, model="smollm2-135m", dataset="crows_pairs", scorer=unknown))
    (written,) = write_reports(result, tmp_path / "out", formats=["html"], scores_dir=tmp_path)
    assert 'id="crows-pairs-distributions"' in written.read_text()
