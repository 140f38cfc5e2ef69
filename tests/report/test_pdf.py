"""The PDF report: the key numbers are in its text, and it fetches nothing from outside."""

from __future__ import annotations

from pathlib import Path

from pypdf import PdfReader

from audit.report.formatting import fmt_num
from audit.report.pdf import ReportOnlyFetcher, write_pdf
from tests.report.conftest import Rendered


def _text(path: Path) -> str:
    return "\n".join(page.extract_text() or "" for page in PdfReader(path).pages)


def test_pdf_has_pages_numbers_and_the_key_numbers(rendered: Rendered) -> None:
    reader = PdfReader(rendered.pdf)
    text = _text(rendered.pdf)
    assert len(reader.pages) > 5
    assert f"Page 1 of {len(reader.pages)}" in text
    assert "release-2024-q3" in text
    for m in rendered.result.measurements:
        if m.measure.name == "bias_score" and m.group == "all" and m.dataset == "crows_pairs":
            assert fmt_num(m.value, 1) in text
            assert fmt_num(m.value, 1) in rendered.html
    verdicts = {v.verdict for v in rendered.result.gate_verdicts}
    assert verdicts <= {"PASS", "FAIL", "INCONCLUSIVE"}
    for word in verdicts | {"Sign-off", "Caveats", "Measure cards"}:
        assert word in text
    assert rendered.result.audit.spec_sha256[:12] in text


def test_pdf_requested_only_inline_data(rendered: Rendered) -> None:
    assert rendered.fetcher.requested, "charts are inline data: URIs and must be requested"
    assert all(url.startswith("data:") for url in rendered.fetcher.requested)
    assert rendered.fetcher.blocked == []


def test_fetcher_refuses_network_and_files(tmp_path: Path) -> None:
    fetcher = ReportOnlyFetcher()
    html = (
        '<html><body><p>x</p><img src="http://127.0.0.1:9/a.png">'
        '<img src="file:///etc/hostname"><link rel="stylesheet" href="https://example.org/a.css">'
        "</body></html>"
    )
    write_pdf(html, tmp_path / "x.pdf", fetcher)
    assert (tmp_path / "x.pdf").stat().st_size > 0
    assert set(fetcher.blocked) == {
        "http://127.0.0.1:9/a.png",
        "file:///etc/hostname",
        "https://example.org/a.css",
    }
