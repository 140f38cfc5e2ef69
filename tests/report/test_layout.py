"""Report layout: a contents page with page numbers, studies that did not run folded into one
list, no near-empty PDF pages, verdict badges inside their cells, and tables that a 390 px
phone shows without sideways scrolling (checked in headless Chromium when it is installed)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from pypdf import PdfReader

from audit.report.build import build_report
from audit.report.pdf import write_pdf
from audit.report.render import render_html
from audit.report.templating import read_asset
from audit.results import AuditResult
from tests.report.conftest import Rendered

# A page with only a chart or a "Not run" line on it held 26 to 64 words (axis labels
# included); a filled page holds some hundreds.
MIN_WORDS = 80


def _pages(pdf: Path) -> list[str]:
    return [" ".join((page.extract_text() or "").split()) for page in PdfReader(pdf).pages]


@pytest.fixture(scope="module")
def not_run(rendered: Rendered, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """The synthetic audit without study records: every study is 'not run'."""
    plain = AuditResult.model_validate(
        rendered.result.model_dump(exclude={"robustness", "correlations", "comparisons"})
    )
    html = render_html(build_report(plain, None))
    return html, write_pdf(html, tmp_path_factory.mktemp("not-run") / "report.pdf")


class Tables(HTMLParser):
    """Every <table>: its class, header texts, and per body cell (tag, class, data-label,
    inner HTML tags seen)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[dict] = []
        self._cell: dict | None = None
        self._in_head = False
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "table":
            self.tables.append({"class": a.get("class", ""), "head": [], "cells": []})
        elif not self.tables:
            return
        elif tag == "thead":
            self._in_head = True
        elif tag in ("td", "th"):
            self._cell = {"tag": tag, "class": a.get("class", ""), "label": a.get("data-label")}
            self._cell["inner"] = []
            self._text = []
        elif self._cell is not None:
            self._cell["inner"].append((tag, a.get("class", "")))

    def handle_endtag(self, tag: str) -> None:
        if tag == "thead":
            self._in_head = False
        elif tag in ("td", "th") and self._cell is not None and self.tables:
            if self._in_head:
                self.tables[-1]["head"].append(" ".join("".join(self._text).split()))
            else:
                self.tables[-1]["cells"].append(self._cell)
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._text.append(data)


def _tables(html: str) -> list[dict]:
    parser = Tables()
    parser.feed(html)
    return parser.tables


def test_pdf_has_a_contents_page_with_right_page_numbers(rendered: Rendered) -> None:
    pages = _pages(rendered.pdf)
    # page 1 is a page of its own; the rest of the cover, then the contents
    contents = next(i for i, text in enumerate(pages[:4]) if "Contents" in text)
    listed = pages[contents].split("Contents", 1)[1]
    entries = re.findall(r"([A-Za-z][^.]*?) \.{3,} ?(\d+)", listed)
    titles = {title.strip(): int(number) for title, number in entries}
    for title in ("Gates and verdicts", "Dataset: crows_pairs", "Caveats", "Sign-off"):
        assert title in titles, (title, pages[contents])
    assert titles["Summary and verdict"] == 1
    for title, number in titles.items():
        if title != "Summary and verdict":
            assert title in pages[number - 1], (title, number)
    assert list(titles.values()) == sorted(titles.values())


def short_pages_allowed(pages: list[str]) -> set[int]:
    """The pages (0-based) that may be short: the last, and in a whole report the body's
    last, since the appendix starts on a page of its own."""
    appendix = [i for i, t in enumerate(pages) if "Every table of the report in full" in t]
    return {len(pages) - 1, *(i - 1 for i in appendix[:1])}


def test_no_pdf_page_is_nearly_empty(rendered: Rendered, not_run: tuple[str, Path]) -> None:
    for pdf in (rendered.pdf, not_run[1]):
        pages = _pages(pdf)
        words = [len(text.split()) for text in pages]
        ends = short_pages_allowed(pages)
        assert min(n for i, n in enumerate(words) if i not in ends) >= MIN_WORDS, words


def test_studies_not_run_are_one_list(not_run: tuple[str, Path]) -> None:
    html, pdf = not_run
    assert 'class="study"' not in html
    section = html[html.index('id="not-run"') : html.index('id="caveats"')]
    items = re.findall(r'<li id="study-([a-z-]+)">', section)
    assert sorted(items) == ["comparison", "correlation", "robustness"]
    assert "Not run: " not in section
    pages = [text for text in _pages(pdf) if "Studies not run" in text]
    assert len(pages) == 2  # the contents page and the one page of the list


def test_studies_that_ran_keep_their_sections(rendered: Rendered) -> None:
    assert 'id="not-run"' not in rendered.html
    assert rendered.html.count('<section class="study"') == len(rendered.report.studies)


def test_verdict_badges_are_spans_inside_table_cells(rendered: Rendered) -> None:
    verdict_cells = [
        c for t in _tables(rendered.html) for c in t["cells"] if "verdict" in c["class"].split()
    ]
    assert verdict_cells
    for cell in verdict_cells:
        assert cell["tag"] == "td"
        assert ("span", cell["inner"][0][1]) == cell["inner"][0]
        assert cell["inner"][0][1].split()[0] == "badge"
    css = read_asset("report.css")
    # the cell keeps display: table-cell; only the span inside is an inline block
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css):
        for selector in selectors.split(","):
            if re.search(r"\.verdict\b", selector) and "display" in body:
                assert "stack" in selector and "display: block" not in body, selector


def test_wide_tables_and_verdict_tables_stack_on_a_phone(rendered: Rendered) -> None:
    tables = _tables(rendered.html)
    stacked = [t for t in tables if "stack" in t["class"].split()]
    for t in tables:
        has_verdict = any("verdict" in c["class"].split() for c in t["cells"])
        if has_verdict or len(t["head"]) > 4:
            assert t in stacked, t["head"]
    for t in stacked:
        width = len(t["head"])
        for i, cell in enumerate(t["cells"]):
            head = t["head"][i % width]
            # a p cell says whose p it is: "p (bert-base-uncased)", "Kendall p (corr.)"
            assert cell["label"] == head or (head.startswith("p") and head in cell["label"]), (
                cell["label"],
                head,
            )
    css = read_asset("report.css")
    phone = css[css.index("@media screen and (max-width: 640px)") :]
    assert re.search(r"table\.stack tr \{[^}]*display: grid", phone)
    assert re.search(r"table\.stack td\.verdict \{[^}]*grid-row: 1", phone)


def _probe(html: str, width: int, tmp: Path) -> dict:
    """Lay `html` out in a `width` px iframe in headless Chromium (its window is never below
    500 px) and measure what overflows."""
    script = """<script>
addEventListener('load', () => {
  const W = document.documentElement.clientWidth, bad = [];
  document.querySelectorAll('.scroll, table').forEach(e => {
    if (e.scrollWidth > e.clientWidth + 1) bad.push('overflow ' + e.closest('[id]').id); });
  document.querySelectorAll('td .badge').forEach(b => {
    const r = b.getBoundingClientRect(), c = b.closest('td').getBoundingClientRect(),
          row = b.closest('tr').getBoundingClientRect();
    if (r.left < 0 || r.right > W) bad.push('off screen ' + b.closest('[id]').id);
    if (r.right > c.right + 1 || r.bottom > c.bottom + 1 || c.right > row.right + 1
        || c.bottom > row.bottom + 1) bad.push('outside its row ' + b.closest('[id]').id);
  });
  parent.postMessage(JSON.stringify({width: W, scroll: document.documentElement.scrollWidth,
                                     badges: document.querySelectorAll('td .badge').length,
                                     bad: bad}), '*');
});
</script></head>"""
    page = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", html)
    (tmp / "page.html").write_text(page.replace("</head>", script, 1))
    (tmp / "frame.html").write_text(
        f'<html><body><iframe src="page.html" style="border:0;width:{width}px;height:900px">'
        '</iframe><pre id="R"></pre><script>addEventListener("message", '
        'e => document.getElementById("R").textContent = e.data)</script></body></html>'
    )
    dom = subprocess.run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--user-data-dir={tmp}/profile",
            f"--window-size={max(width, 500)},900",
            "--virtual-time-budget=5000",
            "--dump-dom",
            f"file://{tmp}/frame.html",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    found = re.search(r'<pre id="R">(.*?)</pre>', dom, re.S)
    assert found, dom[-500:]
    return dict(json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&")))


@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs Debian's chromium")
@pytest.mark.parametrize("width", [390, 1280])
def test_in_chromium_tables_fit_and_badges_sit_in_their_rows(
    rendered: Rendered, tmp_path: Path, width: int
) -> None:
    seen = _probe(rendered.html, width, tmp_path)
    assert seen["width"] == width
    assert seen["scroll"] <= width
    assert seen["badges"] > 10
    assert seen["bad"] == []
