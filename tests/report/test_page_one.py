"""Page 1 alone is signable (issue 21): owner, date, spec sha256, each model's short
fingerprint, every gate check with its verdict and interval, one sentence per study, and
the caveats counted exactly as the Caveats section lists them, all on the first PDF page."""

from __future__ import annotations

import re
from pathlib import Path

from pypdf import PdfReader

from audit.report.build import build_report
from audit.report.formatting import fmt_date, fmt_estimate
from audit.report.gate_summary import page_one_gate_table, page_one_gates
from audit.report.index import MeasurementIndex
from audit.report.model import Table
from audit.report.page_one import FINGERPRINT_DIGITS
from audit.report.pdf import write_pdf
from audit.report.render import render_html
from tests.report.conftest import Rendered
from tests.report.test_summary import demo_like


def _page_one(pdf: Path) -> str:
    """Page 1's text with whitespace collapsed, and hyphen-free breaks joined."""
    return " ".join((PdfReader(pdf).pages[0].extract_text() or "").split())


def _block(html: str) -> str:
    """The HTML of the page-one block."""
    start = html.index('<div class="page-one" id="page-one">')
    return html[start : html.index('<section id="summary"', start)]


def test_page_one_of_a_one_model_audit_with_gates_is_signable(tmp_path: Path) -> None:
    result = demo_like()
    report = build_report(result)
    pdf = write_pdf(render_html(report), tmp_path / "report.pdf")
    text = _page_one(pdf)
    joined = text.replace(" ", "")
    assert result.audit.owner in text
    assert fmt_date(result.created_at) in text
    assert result.audit.spec_sha256 in joined  # the whole hash, whatever the line breaks
    for model in result.models:
        assert f"{model.id} {model.fingerprint[:FINGERPRINT_DIGITS]}" in text
    for v in result.gate_verdicts:
        digits = 3 if v.measure.name == "safety_score" else 1
        assert f"{v.verdict} " in text
        assert fmt_estimate(v.value, v.ci_low, v.ci_high, digits) in text, v
    # the caveats: counted as the Caveats section lists them, each by its title
    assert len(report.caveats) == 5
    assert f"{len(report.caveats)} caveats, listed under Caveats" in text
    for caveat in report.caveats:
        assert caveat.title in text


def test_page_one_caveat_count_is_the_sections_count(rendered: Rendered) -> None:
    block = _block(rendered.html)
    listed = rendered.html.count('<div class="caveat ')
    assert listed == len(rendered.report.caveats) > 0
    (count,) = re.findall(r"(\d+) caveats?, listed under Caveats", block)
    assert int(count) == listed


def _rows(table: Table | None) -> list[list[str]]:
    assert table is not None
    return [[c.text for c in row] for row in table.rows]


def test_every_gate_check_is_on_page_one_until_many_pass(rendered: Rendered) -> None:
    result = rendered.result
    index = MeasurementIndex(result)
    verdicts = list(result.gate_verdicts)
    rows = _rows(page_one_gate_table(index, verdicts, limit=len(verdicts)))
    assert len(rows) == len(verdicts)
    assert {row[4] for row in rows} <= {"PASS", "FAIL", "INCONCLUSIVE"}
    # one more than the limit: shown, never hidden behind "1 more"
    assert len(_rows(page_one_gate_table(index, verdicts, limit=len(verdicts) - 1))) == len(
        verdicts
    )
    # With room for fewer, the worst are listed (failing, then inconclusive, then passing)
    # and the rest are counted by verdict under their gate, never dropped silently.
    kept = _rows(page_one_gate_table(index, verdicts, limit=3))
    assert len(kept) == 3
    failing = [v for v in verdicts if v.verdict == "FAIL"]
    assert len(failing) >= 3 and all(row[4] == "FAIL" for row in kept)
    items = [i for b in page_one_gates(index, verdicts, limit=3) for i in b.items]
    counted = sum(int(n) for i in items for n in re.findall(r"^(\d+) more not in the table", i))
    assert len(kept) + counted == len(verdicts)
    counted_fail = sum(int(n) for i in items for n in re.findall(r"(\d+) FAIL", i))
    assert counted_fail == len(failing) - 3


def test_page_one_fits_one_pdf_page(rendered: Rendered) -> None:
    """The page-one block ends on page 1: page 2 starts with the summary in detail."""
    reader = PdfReader(rendered.pdf)
    one = " ".join((reader.pages[0].extract_text() or "").split())
    two = " ".join((reader.pages[1].extract_text() or "").split())
    assert "listed under Caveats" in one and "Sign-off." in one and "Signature" in one
    assert "Summary in detail" not in one and "Summary in detail" in two
    report = rendered.report.summary.page_one
    assert report is not None
    for block in report.gates:
        assert block.heading in one
    worst = _rows(report.gate_table)[0]  # the worst check, with what its gate requires
    assert " ".join(worst[2:4]) in one


def test_gate_checks_list_the_worst_first_in_a_table() -> None:
    report = build_report(demo_like())
    page = report.summary.page_one
    assert page is not None
    gate2 = page.gates[1]
    assert gate2.heading == "Gate 2: FAIL." and not gate2.items
    assert "4 checks: 0 pass, 2 fail, 2 inconclusive" in gate2.text
    rows = [row for row in _rows(page.gate_table) if row[0] == "2"]
    assert rows[0][1:] == [
        "women",
        "0.250 [0.220, 0.290]",
        "at least 0.5",
        "FAIL",
        "the whole interval lies below 0.5",
    ]
    assert rows[1][1] == "mental disability"
    assert [row[4] for row in rows] == ["FAIL", "FAIL", "INCONCLUSIVE", "INCONCLUSIVE"]
    # each check is judged against its own gate's threshold, not the measure's ideal
    assert all("0.5" in row[5] for row in rows)


def test_every_dataset_has_its_sentence_on_page_one() -> None:
    """Each dataset of the committed post-hoc example has its sentence: BBQ's with its
    headline measure (the ambiguous-context bias score); a dataset of multiple-choice
    questions is counted in questions."""
    from audit.results_io import read_results

    example = Path(__file__).resolve().parents[2] / "docs/examples/posthoc-debiasing"
    block = _block(render_html(build_report(read_results(example / "results.json"))))
    # a sample is said as one: n of the file's rows
    for heading in (
        "CrowS-Pairs (105 of 1,508 pairs).",
        "StereoSet (79 of 4,229 pairs).",
        "BBQ (300 of 11,956 questions).",
    ):
        assert heading in block, heading
    assert "BBQ bias score s_AMB, ideal 0" in block
