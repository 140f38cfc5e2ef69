"""Where a PDF's text runs past the page's text area: every glyph's box against the left
and right page margins of report.css (`@page { margin: 20mm 14mm 18mm 14mm }`).

Text that weasyprint could not fit is still drawn, off the text area (and, past the page
edge, out of sight): its glyphs keep their positions in the PDF, which is what this reads.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pdfminer.high_level import extract_pages
from pdfminer.layout import LTChar, LTComponent

#: The page's left and right margins (report.css), in PDF points.
SIDE_MARGIN_PT = 14 * 72 / 25.4
#: Half a point of slack for glyph boxes that touch the margin.
SLACK_PT = 0.5


def _chars(box: LTComponent) -> Iterator[LTChar]:
    if isinstance(box, LTChar):
        yield box
    elif isinstance(box, list) or hasattr(box, "__iter__"):
        for inner in box:  # type: ignore[attr-defined]
            yield from _chars(inner)


def text_past_the_margins(pdf: Path) -> list[tuple[int, str]]:
    """(page number, the text of a line) for every line with a glyph outside the text
    area, left or right; empty when all text is inside."""
    found: list[tuple[int, str]] = []
    for number, page in enumerate(extract_pages(pdf, laparams=None), 1):
        left, right = SIDE_MARGIN_PT - SLACK_PT, page.width - SIDE_MARGIN_PT + SLACK_PT
        lines: dict[int, list[str]] = {}
        for char in _chars(page):
            if char.get_text().strip() and (char.x0 < left or char.x1 > right):
                lines.setdefault(round(char.y0), []).append(char.get_text())
        found += [(number, "".join(text)) for _, text in sorted(lines.items(), reverse=True)]
    return found
