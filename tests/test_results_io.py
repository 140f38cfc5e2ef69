"""Reading results.json: version check, the version 1 migration, errors that name the file."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from audit.comparison.runs import compare_results
from audit.errors import AuditUserError
from audit.gates import describe_verdict
from audit.ids import PluginId
from audit.migrations.v1_cards import v1_cards
from audit.migrations.v2 import migrate_v2
from audit.migrations.v3 import migrate_v3
from audit.report.build import build_report
from audit.report.compare import build_comparison
from audit.report.render import render_html
from audit.results import RESULTS_VERSION
from audit.results_io import read_results
from audit.studies import paired_test
from tests.report.html_parse import parse
from tests.report.synthetic import synthetic_result, synthetic_scores

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "results_v1_demo.json"


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
    assert result.results_version == str(RESULTS_VERSION) and result.read_notes is None
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
        ('{"results_version": 99}', r"results_version 99\.0 .*newer bias-audit.* 1 to 4\.2"),
        ('{"results_version": "5.0"}', r"results_version 5\.0 .*newer bias-audit \(a new major"),
        ('{"tool_version": 3}', r"not a results\.json \(results_version None is not a version"),
        ('{"results_version": "2.x"}', r"'2\.x' is not a version; expected 'MAJOR\.MINOR'"),
        ('{"results_version": true}', r"not a results\.json \(results_version True is not"),
        ("[1, 2", r"not a valid results\.json \(not JSON"),
        ('{"results_version": 2}', r"not a valid results\.json version 2\.0 \("),
        ('{"results_version": "2.1"}', r"not a valid results\.json version 2\.1 \("),
        ('{"results_version": 0}', r"results_version 0\.0 is not one this tool reads"),
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
        compare_results(
            result,
            result,
            baseline_scores=None,
            candidate_scores=None,
            paired_test=paired_test,
        )
    )
    assert report.model_pairs == [("smollm2-135m", "smollm2-135m")]
    # the same weights are a fact of what changed, not a mismatch of the data
    assert not any("fingerprint" in m for m in report.mismatches)
    assert report.changes[0].lines[0] == "weights: the same (the same fingerprint)"
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


#: The example audits as committed under results_version 2 (tests/fixtures/results_v2).
EXAMPLES = sorted(
    (Path(__file__).resolve().parents[1] / "tests/fixtures/results_v2").glob("*.json")
)
#: The example audits as committed now.
CURRENT_EXAMPLES = sorted(
    (Path(__file__).resolve().parents[1] / "docs" / "examples").glob("*/results.json")
)
#: What the current models add when they write a version 2.0 file back: the version and
#: each card's own version (results_version 2.1), each unit's `set_aside` (2.2) and each
#: meta-evaluation row's test against rank 1 and each extrinsic record's `chosen_checkpoint` (3.0).
WRITTEN_SINCE_2_0 = {
    "results_version",
    "version",
    "set_aside",
    "gap_to_first",
    "gap_to_first_ci_low",
    "gap_to_first_ci_high",
    "ties_first",
    "chosen_checkpoint",
}
#: What 4.0 adds to comparison, correlation and meta-evaluation records (defaults in a file
#: migrated from an older version).
WRITTEN_SINCE_4_0 = {
    "verdict_uncorrected",
    "difference_p",
    "difference_test",
    "difference_se",
    "resamples_for_p",
    "correction",
    "test_family",
    "family_size",
    "p_value_corrected",
    "difference_p_corrected",
    "borderline_reason",
    "detectable_difference",
    "detectable_power",
    "same_test_as",
    "detection",
    "kendall_tau_ci_low",
    "kendall_tau_ci_high",
    "spearman_rho_ci_low",
    "spearman_rho_ci_high",
    "items_resampled",
    "trivial",
    "spearman_p_corrected",
    "seeds",
    "seed_sd",
    "seed_min",
    "seed_max",
    "endpoint",  # 4.1: a served model's endpoint and probe
    "chat_template",  # 4.1: the chat template of its multiple-choice prompts
}
#: What 3.0 adds to each correlation record and to each of its two series, and to `audit`.
CORRELATION_FIELDS_2_3 = {
    "correction",
    "test_family",
    "family_size",
    "pearson_p_corrected",
    "spearman_p_corrected",
    "kendall_p_corrected",
    "kendall_p_floor",
    "alpha",
    "model_types",
    "excluded",
    "failed_kept",
}
SERIES_FIELDS_2_3 = {"scorer", "scale", "ideal_value"}


def _without_2_3(written: dict[str, Any]) -> dict[str, Any]:
    """A file written back without what 3.0 added, each field checked to read as before 3.0:
    raw series, no correction, no exclusion."""
    out = copy.deepcopy(written)
    assert out["audit"].pop("correlations") is None
    assert out["audit"].pop("comparisons") is None
    for c in out["correlations"]:
        assert c["correction"] is None and c["excluded"] == [] and c["failed_kept"] == []
        for key in CORRELATION_FIELDS_2_3:
            c.pop(key)
        for axis in ("x", "y"):
            assert c[axis]["scale"] == "raw" and c[axis]["scorer"] is None
            for key in SERIES_FIELDS_2_3:
                c[axis].pop(key)
    return out


def _without(data: Any, keys: set[str]) -> Any:
    if isinstance(data, dict):
        return {k: _without(v, keys) for k, v in data.items() if k not in keys}
    if isinstance(data, list):
        return [_without(v, keys) for v in data]
    return data


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_version_2_examples_read_whole_and_render(path: Path) -> None:
    """The examples (version 2, with the variants, corpora, meta-evaluation, extrinsic and
    precision sections the reader of a month ago refused) read with no warning, lose
    nothing, and render."""
    result = read_results(path)
    assert result.read_notes is None and result.results_version == str(RESULTS_VERSION)
    data = json.loads(path.read_text())
    assert data["results_version"] == 2
    # version 3 says what moved in each comparison; nothing else of the file changes
    verdicts = {
        (c["verdict"], new.verdict)
        for c, new in zip(data["comparisons"], result.comparisons, strict=True)
    }
    assert verdicts <= {
        ("better", "closer to the ideal"),
        ("worse", "further from the ideal"),
        ("not distinguishable", "changed"),
        ("not distinguishable", "no detectable change"),
        ("undefined", "undefined"),
    }
    data = migrate_v3(migrate_v2(data))
    written = _without_2_3(json.loads(result.model_dump_json()))
    # sections added under version 2 after the file was written come back empty
    added = set(written) - set(data)
    assert all(written[k] in ([], None) for k in added), added
    dropped = WRITTEN_SINCE_2_0 | WRITTEN_SINCE_4_0 | added
    assert _without(written, dropped) == _without(data, dropped)
    assert {c["version"] for c in written["plugins"]} == {"1"}  # cards without one read as 1
    html = render_html(build_report(result, None))
    assert f"<h1>{result.audit.name}</h1>" in html and 'id="unread"' not in html


def test_examples_cover_the_sections_added_under_version_2() -> None:
    sections = {k for path in EXAMPLES for k, v in json.loads(path.read_text()).items() if v}
    assert {"variants", "corpora", "meta_evaluations", "extrinsic"} <= sections


@pytest.mark.slow
def test_an_example_renders_with_its_scores_to_html_and_pdf(tmp_path: Path) -> None:
    from audit.report.render import write_reports
    from audit.results_io import read_scores

    # the committed example, with its scores.parquet beside it
    path = next(p for p in CURRENT_EXAMPLES if p.parent.name == "posthoc-debiasing")
    result = read_results(path)
    written = write_reports(result, tmp_path, formats=["html", "pdf"], scores_dir=path.parent)
    assert read_scores(path.parent, result) is not None
    assert {p.suffix for p in written} >= {".html", ".pdf"}
    assert (tmp_path / "report.pdf").stat().st_size > 10_000


def _newer_minor(tmp_path: Path) -> Path:
    """The extrinsic example as a newer minor version would write it: a section and fields
    at three depths this version does not know."""
    example = next(p for p in EXAMPLES if p.stem == "intrinsic-vs-extrinsic")
    data = migrate_v3(migrate_v2(json.loads(example.read_text())))
    data["results_version"] = f"{RESULTS_VERSION.major}.{RESULTS_VERSION.minor + 3}"
    data["audit"]["report_formats"] = ["html"]
    data["fairness_checks"] = [{"name": "parity", "value": 0.1}]
    for m in data["measurements"]:
        m["calibration"] = 0.5
    data["extrinsic"][0]["detail"]["macro_f1"] = 0.7
    return _write(tmp_path / "results.json", data)


def test_a_newer_minor_version_reads_with_what_it_left_out(tmp_path: Path) -> None:
    path = _newer_minor(tmp_path)
    newer = f"{RESULTS_VERSION.major}.{RESULTS_VERSION.minor + 3}"
    result = read_results(path)
    notes = result.read_notes
    assert notes is not None and (notes.version, notes.reader_version) == (newer, "4.2")
    assert [p.describe() for p in notes.parts] == [
        f"field `measurements[].calibration` (in {len(result.measurements)} records)",
        "field `extrinsic[].detail.macro_f1`",
        "section `fairness_checks`",
    ]
    warnings = notes.warnings()
    assert warnings[-1] == (
        f"{path}: results_version {newer} is newer than this bias-audit reads (4.2); not "
        "read: section `fairness_checks`"
    )
    assert result.results_version == "4.2"
    # everything this version knows is there, as in the example itself
    example = read_results(next(p for p in EXAMPLES if p.stem == "intrinsic-vs-extrinsic"))
    assert result.measurements == example.measurements and result.extrinsic == example.extrinsic
    html = render_html(build_report(result, None))
    block = html.split('<div id="unread">', 1)[1].split("</ul>", 1)[0]
    text = " ".join("".join(parse(block).text).split())
    assert "could not show" in text and f"results_version {newer}" in text
    for name in ("measurements[].calibration", "extrinsic[].detail.macro_f1", "fairness_checks"):
        assert name in text


def test_render_prints_a_warning_per_part_left_out(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from audit.cli import app

    path = _newer_minor(tmp_path)
    done = CliRunner().invoke(app, ["render", str(path)])
    assert done.exit_code == 0, done.output
    lines = [x for x in done.stderr.splitlines() if x.startswith("warning: ")]
    assert len(lines) == 3 and all(str(path) in x for x in lines)
    assert "fairness_checks" in lines[-1]
    assert "could not show" in (tmp_path / "report.html").read_text()


def test_a_newer_major_version_is_refused(tmp_path: Path) -> None:
    data = json.loads(EXAMPLES[0].read_text())
    data["results_version"] = f"{RESULTS_VERSION.major + 1}.0"
    path = _write(tmp_path / "results.json", data)
    with pytest.raises(AuditUserError) as caught:
        read_results(path)
    assert caught.value.exit_code == 2
    assert str(caught.value) == (
        f"{path}: results_version 5.0 was written by a newer bias-audit (a new major version, "
        "5); this version reads results_version 1 to 4.2 (and newer 4.x). Upgrade "
        "bias-audit to read it."
    )


def test_an_unknown_field_in_a_file_of_this_version_is_still_an_error(tmp_path: Path) -> None:
    data = migrate_v3(migrate_v2(json.loads(EXAMPLES[0].read_text())))
    data["results_version"] = str(RESULTS_VERSION)
    data["measurements"][0]["calibration"] = 0.5
    with pytest.raises(AuditUserError, match=r"first at measurements\.0\.calibration: Extra"):
        read_results(_write(tmp_path / "results.json", data))


def test_compare_names_what_it_could_not_show(tmp_path: Path) -> None:
    from audit.report.compare import render_comparison_html

    newer = read_results(_newer_minor(tmp_path))
    example = read_results(next(p for p in EXAMPLES if p.stem == "intrinsic-vs-extrinsic"))
    report = build_comparison(
        compare_results(
            example, newer, baseline_scores=None, candidate_scores=None, paired_test=paired_test
        )
    )
    assert report.unread == newer.read_notes.warnings()  # type: ignore[union-attr]
    html = render_comparison_html(report)
    block = html.split('<section id="unread">', 1)[1].split("</section>", 1)[0]
    assert "could not show" in block and "section `fairness_checks`" in block


@pytest.mark.parametrize("path", CURRENT_EXAMPLES, ids=lambda p: p.parent.name)
def test_committed_examples_are_current_and_lose_nothing(path: Path) -> None:
    """The committed examples are written by this results version: they read with no
    note, and written back they are the same JSON."""
    result = read_results(path)
    assert result.read_notes is None and result.results_version == str(RESULTS_VERSION)
    data = json.loads(path.read_text())
    assert str(data["results_version"]) == str(RESULTS_VERSION)
    assert json.loads(result.model_dump_json()) == data
