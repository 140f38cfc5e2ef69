"""One synthetic audit rendered once per session (HTML and PDF), shared by the report tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

from audit.report.build import build_report
from audit.report.model import ReportModel
from audit.report.pdf import ReportOnlyFetcher, write_pdf
from audit.report.render import render_html
from audit.results import AuditResult
from tests.report.synthetic import synthetic_scores, synthetic_studied_result


@dataclass
class Rendered:
    result: AuditResult
    scores: pd.DataFrame
    report: ReportModel
    html: str
    pdf: Path
    fetcher: ReportOnlyFetcher


@pytest.fixture(scope="session")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Rendered:
    scores = synthetic_scores()
    result = synthetic_studied_result(scores)
    report = build_report(result, scores)
    html = render_html(report)
    fetcher = ReportOnlyFetcher()
    pdf = write_pdf(html, tmp_path_factory.mktemp("report") / "report.pdf", fetcher)
    return Rendered(result, scores, report, html, pdf, fetcher)
