"""One synthetic audit rendered once per session as the tool writes it (report.html, the
signed report.pdf and report-appendix.pdf), shared by the report tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

from audit.report.build import build_report
from audit.report.model import ReportModel
from audit.report.pdf import ReportOnlyFetcher
from audit.report.render import write_report_files
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
    appendix_pdf: Path


@pytest.fixture(scope="session")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Rendered:
    scores = synthetic_scores()
    result = synthetic_studied_result(scores)
    report = build_report(result, scores)
    fetcher = ReportOnlyFetcher()
    folder = tmp_path_factory.mktemp("report")
    html_path, pdf, appendix = write_report_files(report, folder, ["html", "pdf"], fetcher=fetcher)
    return Rendered(result, scores, report, html_path.read_text(), pdf, fetcher, appendix)
