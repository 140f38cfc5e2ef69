"""Write the reports of a run: results.json in, report.html and report.pdf out."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from markupsafe import Markup

from audit.atomic_write import write_text_atomic
from audit.errors import AuditUserError
from audit.report.layout import build_layout
from audit.report.model import Chart, ReportModel
from audit.report.svg import chart_svg, svg_data_uri
from audit.report.templating import environment, read_asset
from audit.results import AuditResult
from audit.results_io import read_scores

FORMATS = ("html", "pdf")


def chart_uris(charts: list[Chart]) -> dict[str, str]:
    """Each chart drawn to SVG, as a data: URI keyed by chart id."""
    return {c.id: svg_data_uri(chart_svg(c.spec)) for c in charts}


def all_charts(report: ReportModel) -> list[Chart]:
    charts = [c for d in report.datasets for c in d.charts]
    charts += [] if report.seat is None else [*report.seat.lead_charts, *report.seat.charts]
    charts += [c for s in report.variant_sections for c in [*s.lead_charts, *s.charts]]
    return charts + [c for s in report.studies for c in s.charts]


def render_html(report: ReportModel, *, template: str = "report.html.j2") -> str:
    """The self-contained HTML of a report (inline CSS, charts as inline SVG images): a
    short body, then the appendix (audit/report/layout.py)."""
    env = environment()
    page = env.get_template(template)
    return page.render(
        report=report,
        layout=build_layout(report),
        css=Markup(read_asset("report.css")),
        chart_uris=chart_uris(all_charts(report)),
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


def write_reports(
    result: AuditResult, out_dir: Path, *, formats: Sequence[str], scores_dir: Path | None = None
) -> list[Path]:
    """Write report.html and/or report.pdf for `result` into out_dir. The distribution
    charts read scores.parquet from `scores_dir` (the folder of the run's results.json;
    default out_dir) when it is there."""
    from audit.report.build import build_report

    formats = check_formats(formats)
    if not formats:
        return []
    report = build_report(result, read_scores(scores_dir or out_dir, result))
    return write_html_and_pdf(render_html(report), out_dir, "report", formats)
