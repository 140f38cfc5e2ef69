"""Write the reports of a run: results.json in, report.html and report.pdf out."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from markupsafe import Markup

from audit.atomic_write import write_text_atomic
from audit.errors import AuditUserError
from audit.report.layout import build_layout
from audit.report.model import Chart, ReportModel
from audit.report.svg import chart_svg, svg_data_uri
from audit.report.templating import environment, read_asset
from audit.results import AuditResult
from audit.results_io import read_scores

if TYPE_CHECKING:
    from audit.report.pdf import ReportOnlyFetcher

FORMATS = ("html", "pdf")


def chart_uris(charts: list[Chart]) -> dict[str, str]:
    """Each chart drawn to SVG, as a data: URI keyed by chart id."""
    return {c.id: svg_data_uri(chart_svg(c.spec)) for c in charts}


def all_charts(report: ReportModel) -> list[Chart]:
    charts = [c for d in report.datasets for c in d.charts]
    charts += [] if report.seat is None else [*report.seat.lead_charts, *report.seat.charts]
    charts += [c for s in report.variant_sections for c in [*s.lead_charts, *s.charts]]
    return charts + [c for s in report.studies for c in s.charts]


#: What `render_html` renders: everything (report.html), the signed document (page 1 with
#: the sign-off, and the body: report.pdf) or the appendix alone (report-appendix.pdf).
Part = Literal["whole", "signed", "appendix"]

#: How many steps tighter page 1 may be set (report.css: .page-one.tight-N) to keep the
#: sign-off on it.
TIGHTER_STEPS = 4

#: The file the appendix is printed to, beside report.pdf.
APPENDIX_PDF = "report-appendix.pdf"


def render_html(
    report: ReportModel,
    *,
    template: str = "report.html.j2",
    part: Part = "whole",
    appendix_sha256: str | None = None,
    uris: dict[str, str] | None = None,
    tight: int = 0,
) -> str:
    """The self-contained HTML of a report (inline CSS, charts as inline SVG images):
    page 1 with the sign-off, a short body, then the appendix (audit/report/layout.py);
    `part` renders the signed document or the appendix alone. `appendix_sha256`: the
    appendix file's, printed on page 1. `uris`: the charts, when already drawn. `tight`:
    how much tighter page 1 is set (0: as designed)."""
    env = environment()
    page = env.get_template(template)
    return page.render(
        report=report,
        layout=build_layout(report),
        css=Markup(read_asset("report.css")),
        chart_uris=chart_uris(all_charts(report)) if uris is None else uris,
        part=part,
        appendix_sha256=appendix_sha256,
        tight=tight,
    )


def check_formats(formats: Sequence[str]) -> list[str]:
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        raise AuditUserError(
            f"unknown report format(s) {', '.join(map(repr, unknown))}; accepted: html, pdf"
        )
    return list(dict.fromkeys(formats))


def write_html_and_pdf(html: str, out_dir: Path, stem: str, formats: list[str]) -> list[Path]:
    """Write `<stem>.html` and/or `<stem>.pdf` into out_dir, each atomically (an earlier
    file stays whole until the new one is); returns the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    if "html" in formats:
        written.append(write_text_atomic(out_dir / f"{stem}.html", html))
    if "pdf" in formats:
        from audit.report.pdf import write_pdf

        written.append(write_pdf(html, out_dir / f"{stem}.pdf"))
    return written


def write_report_files(
    report: ReportModel,
    out_dir: Path,
    formats: Sequence[str],
    *,
    fetcher: ReportOnlyFetcher | None = None,
) -> list[Path]:
    """report.html (everything) and/or the PDFs: report-appendix.pdf first, then the
    signed report.pdf (page 1 with the sign-off, and the body), which prints the
    appendix's sha256. Each file is written atomically; returns the paths written.
    `fetcher`: what the PDFs may load (only inline data), and what they asked for."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    appendix_sha256: str | None = None
    uris = chart_uris(all_charts(report))
    if "pdf" in formats:
        from audit.report.pdf import write_pdf, write_pdf_keeping

        html = render_html(report, part="appendix", uris=uris)
        appendix = write_pdf(html, out_dir / APPENDIX_PDF, fetcher)
        appendix_sha256 = hashlib.sha256(appendix.read_bytes()).hexdigest()
        signed, _ = write_pdf_keeping(
            lambda step: render_html(
                report, part="signed", appendix_sha256=appendix_sha256, uris=uris, tight=step
            ),
            out_dir / "report.pdf",
            anchor="signoff",
            steps=TIGHTER_STEPS,
            fetcher=fetcher,
        )
        written += [signed, appendix]
    if "html" in formats:
        html = render_html(report, appendix_sha256=appendix_sha256, uris=uris)
        written.insert(0, write_text_atomic(out_dir / "report.html", html))
    return written


def write_reports(
    result: AuditResult, out_dir: Path, *, formats: Sequence[str], scores_dir: Path | None = None
) -> list[Path]:
    """Write report.html and/or report.pdf with report-appendix.pdf for `result` into
    out_dir. The distribution charts read scores.parquet from `scores_dir` (the folder of
    the run's results.json; default out_dir) when it is there."""
    from audit.report.build import build_report

    formats = check_formats(formats)
    if not formats:
        return []
    report = build_report(result, read_scores(scores_dir or out_dir, result))
    return write_report_files(report, out_dir, formats)
