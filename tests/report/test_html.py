"""The HTML report: tables and verdicts, studies, caveats, escaping, no external requests."""

from __future__ import annotations

import base64
import re

from audit.ids import PluginId
from audit.report.build import build_report
from audit.report.formatting import fmt_ci, fmt_num, group_name
from audit.report.render import render_html
from audit.results import Measurement
from tests.report.conftest import Rendered
from tests.report.html_parse import parse
from tests.report.synthetic import small_result


def _measurement(
    r: Rendered, model: str, dataset: str, measure: str, group: str = "all"
) -> Measurement:
    return next(
        m
        for m in r.result.measurements
        if (m.model, m.dataset, m.measure.name, m.group) == (model, dataset, measure, group)
    )


def test_overview_table_shows_every_model_with_value_and_ci(rendered: Rendered) -> None:
    rows = parse(rendered.html).table("crows-pairs-overview")
    header, body = rows[0], rows[1:]
    assert header[:3] == ["Model", "Scorer", "Items"]
    assert [row[0] for row in body] == ["bert-base-uncased", "roberta-base", "gpt2"]
    column = next(i for i, h in enumerate(header) if h.startswith("Bias score"))
    for row in body:
        m = _measurement(rendered, row[0], "crows_pairs", "bias_score")
        assert row[column] == f"{fmt_num(m.value, 1)}{fmt_ci(m.ci_low, m.ci_high, 1)}"


def test_group_table_has_a_row_per_bias_type(rendered: Rendered) -> None:
    rows = parse(rendered.html).table("crows-pairs-bias-score-groups")
    groups = [row[0] for row in rows[1:]]
    assert sorted(groups) == sorted(map(group_name, rendered.result.datasets[0].groups))
    assert rows[0][2] == "bert-base-uncased" and rows[0][3] == "p"


def test_gate_table_matches_the_evaluated_verdicts(rendered: Rendered) -> None:
    rows = parse(rendered.html).table("gates-table")[1:]
    verdicts = rendered.result.gate_verdicts
    assert len(rows) == len(verdicts)
    for row, verdict in zip(rows, verdicts, strict=True):
        assert row[-1].startswith(verdict.verdict)
        assert row[3] == verdict.model
    summary = parse(rendered.html).table("gates-summary")
    assert [row[-1] for row in summary[1:]] == ["FAIL", "FAIL", "PASS"]
    assert "Exit code" in rendered.html


def test_studies_appear_with_their_records(rendered: Rendered) -> None:
    page = parse(rendered.html)
    robustness = page.table("robustness-table")
    verdicts = {row[-1].rstrip("0123456789") for row in robustness[1:]}
    assert verdicts == {"robust", "not robust"}
    assert len(page.table("correlation-table")) == 1 + len(rendered.result.correlations)
    comparison = page.table("comparison-table")[1:]
    # the verdict, with the mark of its note (why it is borderline) when it has one
    assert comparison[0][-1].rstrip("0123456789") == rendered.result.comparisons[0].verdict
    for chart in (
        "robustness-chart",
        "correlation-chart",
        "crows-pairs-distributions",
        "toxigen-safety-score-chart",
    ):
        assert f'id="{chart}"' in rendered.html


def test_caveats_name_their_triggers(rendered: Rendered) -> None:
    ids = {c.id for c in rendered.report.caveats}
    assert {"intrinsic-only", "non-normal", "non-robust", "dataset-pitfalls"} <= ids
    non_normal = next(c for c in rendered.report.caveats if c.id == "non-normal")
    assert "gpt2" in non_normal.trigger and "bert-base-uncased" not in non_normal.trigger
    fragile = next(c for c in rendered.report.caveats if c.id == "non-robust")
    assert "KLS" in fragile.trigger and "Bias score" not in fragile.trigger
    assert 'id="caveat-non-normal"' in rendered.html
    assert "Kendall tau from -0.20 to 0.53" in rendered.html


def test_studies_without_records_say_not_run(rendered: Rendered) -> None:
    from audit.results import AuditResult

    plain = AuditResult.model_validate(
        rendered.result.model_dump(exclude={"robustness", "correlations", "comparisons"})
    )
    report = build_report(plain, None)
    studies = {s.id: s for s in report.studies}
    assert not any(s.ran for s in studies.values())
    assert "spec has no robustness section" in studies["robustness"].not_run_reason
    assert "only 3 models" in studies["correlation"].not_run_reason
    assert "non-robust" not in {c.id for c in report.caveats}


def test_nothing_is_loaded_from_outside_the_file(rendered: Rendered) -> None:
    page = parse(rendered.html)
    assert not {"script", "link", "iframe", "object", "embed", "base"} & set(page.tags)
    for url in page.urls:
        assert url.startswith("#") or url.startswith("data:image/svg+xml;base64,"), url
    css = rendered.html[rendered.html.index("<style>") : rendered.html.index("</style>")]
    assert "url(" not in css and "@import" not in css
    for url in page.urls:
        if url.startswith("data:"):
            svg = base64.b64decode(url.split(",", 1)[1]).decode()
            assert "<script" not in svg
            assert not re.search(r"(href|src)=\"(?!#|data:)", svg)


def test_hostile_text_is_escaped() -> None:
    hostile = "<script>alert('x')</script>"
    result = small_result(
        [
            Measurement(
                model=hostile,
                dataset="crows_pairs",
                scorer=PluginId.of("cps"),
                measure=PluginId.of("bias_score"),
                group="<img src=x onerror=alert(1)>",
                value=55.0,
                ci_low=50.0,
                ci_high=60.0,
                n=40,
                note=f"sentence: {hostile}",
            ),
        ],
        gates=[{"measure": "bias_score", "dataset": "crows_pairs", "within": [45, 55]}],
        models=(hostile,),
    )
    result = result.model_copy(
        update={"audit": result.audit.model_copy(update={"description": hostile})}
    )
    html = render_html(build_report(result, None))
    page = parse(html)
    assert "script" not in page.tags
    assert all(u.startswith(("#", "data:image/svg+xml;base64,")) for u in page.urls)
    assert hostile not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in html
    for url in page.urls:
        if url.startswith("data:"):
            svg = base64.b64decode(url.split(",", 1)[1]).decode()
            assert "<script" not in svg and "<img" not in svg
    assert hostile in "".join(page.text)
