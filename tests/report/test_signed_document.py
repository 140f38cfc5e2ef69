"""The PDF that is signed is page 1 with its sign-off block and the body; the appendix is
a separate file whose sha256 page 1 prints; report.html keeps everything."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from pypdf import PdfReader

from audit.report.build import build_report
from audit.report.render import APPENDIX_PDF, write_report_files
from tests.report.synthetic import synthetic_scores, synthetic_studied_result

#: The signed document's pages at most: page 1 and the body.
SIGNED_PAGES = 12


@dataclass
class Written:
    folder: Path
    pages: list[str]
    appendix: list[str]
    html: str


def _texts(pdf: Path) -> list[str]:
    return [page.extract_text() or "" for page in PdfReader(pdf).pages]


def _flat(text: str) -> str:
    return re.sub(r"\s+", "", text)


def written_reports(folder: Path) -> Written:
    return Written(
        folder,
        _texts(folder / "report.pdf"),
        _texts(folder / APPENDIX_PDF),
        (folder / "report.html").read_text(),
    )


def check_signed(written: Written) -> None:
    """What every signed document must be: the sign-off on page 1 with the appendix's
    sha256, 'Page N of M' counting only its own pages, no appendix inside."""
    pages, first = written.pages, written.pages[0]
    assert 0 < len(pages) <= SIGNED_PAGES, len(pages)
    assert "Sign-off." in first and "Signature" in first and "Reviewer" in first
    digest = hashlib.sha256((written.folder / APPENDIX_PDF).read_bytes()).hexdigest()
    assert digest in _flat(first)
    for number, text in enumerate(pages, 1):
        assert f"Page {number} of {len(pages)}" in text
    assert not any("Appendix A:" in text for text in pages)
    assert "APPENDIX TO THE BIAS AUDIT REPORT" in written.appendix[0]  # the kicker
    assert any("Appendix A:" in text for text in written.appendix)


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Written:
    scores = synthetic_scores()
    report = build_report(synthetic_studied_result(scores), scores)
    folder = tmp_path_factory.mktemp("signed")
    paths = write_report_files(report, folder, ["html", "pdf"])
    assert [p.name for p in paths] == ["report.html", "report.pdf", APPENDIX_PDF]
    return written_reports(folder)


def test_the_signed_pdf_is_page_one_with_the_sign_off_and_the_body(written: Written) -> None:
    check_signed(written)
    # what is signed is on page 1 above the block: owner, date, spec hash, tool, prints
    first = written.pages[0]
    for fact in ("Owner", "Date", "Spec sha256", "Tool", "Models", "Findings", "Caveats"):
        assert fact in first, fact
    assert first.index("Caveats") < first.index("Sign-off.")
    # the body's links to the appendix name the file, not an anchor that is not there
    assert any("report-appendix.pdf" in text for text in written.pages[1:])


def test_the_html_keeps_the_appendix_and_puts_the_sign_off_on_page_one(
    written: Written,
) -> None:
    html = written.html
    page_one = html[html.index('id="page-one"') : html.index('id="summary"')]
    assert 'id="signoff"' in page_one and "Signature" in page_one
    assert html.count('id="signoff"') == 1
    assert 'id="appendix"' in html and "Appendix A:" in html
