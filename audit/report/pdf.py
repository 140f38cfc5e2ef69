"""HTML to PDF with weasyprint, fetching nothing outside the report itself."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from weasyprint import HTML
from weasyprint.urls import URLFetcher

from audit.atomic_write import atomic_path


class ReportOnlyFetcher(URLFetcher):
    """Serves the report's own `data:` URLs and refuses everything else (network and files).

    Every URL asked for is kept in `requested`, every refused one in `blocked`.
    """

    def __init__(self) -> None:
        super().__init__(allowed_protocols={"data"}, allow_redirects=False, timeout=1)
        self.requested: list[str] = []
        self.blocked: list[str] = []

    def fetch(self, url: str, headers: Any = None) -> Any:
        self.requested.append(url[:80])
        if not url.startswith("data:"):
            self.blocked.append(url)
            raise ValueError(f"the report may not load {url!r}: only inline data is allowed")
        return super().fetch(url, headers)


def write_pdf(html: str, path: Path, fetcher: ReportOnlyFetcher | None = None) -> Path:
    """Render `html` (self-contained) to `path` with the print stylesheet, atomically
    (an earlier PDF stays whole until the new one is)."""
    fetcher = fetcher or ReportOnlyFetcher()
    with atomic_path(path) as tmp:
        HTML(string=html, url_fetcher=fetcher, media_type="print").write_pdf(tmp)
    return path
