"""No text in any PDF the tool writes runs past the page's text area: the committed
example reports (signed document and appendix) and comparison, and fresh renders of a
comparison whose table is widest (the verdict column used to be cut off at the edge)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from audit.report.pdf import write_pdf
from tests.report.pdf_text_area import text_past_the_margins

ROOT = Path(__file__).resolve().parents[2]


def _committed_pdfs() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "*.pdf"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return [ROOT / name for name in listed]


def test_the_check_finds_text_past_the_margin(tmp_path: Path) -> None:
    """The checker can fail: a line too long for the page, kept on one line, is found."""
    wide = "<p style='white-space: nowrap'>" + "overflowing-text " * 30 + "</p>"
    pdf = write_pdf(f"<html><body><p>fits</p>{wide}</body></html>", tmp_path / "wide.pdf")
    found = text_past_the_margins(pdf)
    assert found and found[0][0] == 1 and "overflowing-text" in found[0][1]
    narrow = write_pdf("<html><body><p>fits</p></body></html>", tmp_path / "narrow.pdf")
    assert text_past_the_margins(narrow) == []


def test_every_committed_example_pdf_is_listed() -> None:
    names = {p.relative_to(ROOT / "docs" / "examples").as_posix() for p in _committed_pdfs()}
    assert "chat-template/comparison/comparison.pdf" in names
    assert "debiasing/report.pdf" in names and "debiasing/report-appendix.pdf" in names


@pytest.mark.slow
@pytest.mark.parametrize(
    "pdf", _committed_pdfs(), ids=lambda p: p.relative_to(ROOT / "docs" / "examples").as_posix()
)
def test_no_text_of_a_committed_pdf_runs_past_the_text_area(pdf: Path) -> None:
    found = text_past_the_margins(pdf)
    assert not found, f"{pdf.name}: {len(found)} line(s) past the margins, first {found[:3]}"
