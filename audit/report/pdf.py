"""HTML to PDF with weasyprint, fetching nothing outside the report itself."""

from __future__ import annotations

from collections.abc import Callable
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


def write_pdf_keeping(
    render: Callable[[int], str],
    path: Path,
    *,
    anchor: str,
    steps: int,
    fetcher: ReportOnlyFetcher | None = None,
) -> tuple[Path, int]:
    """Render `render(step)` for step 0, 1, ... until the element with id `anchor` lies
    on the first page (or the steps run out), and write that PDF atomically; returns the
    path and the step used. Page 1 of a report is set tighter step by step so that its
    sign-off stays on it, whatever the page holds."""
    fetcher = fetcher or ReportOnlyFetcher()
    for step in range(steps + 1):
        document = HTML(string=render(step), url_fetcher=fetcher, media_type="print").render()
        if anchor in document.pages[0].anchors or step == steps:
            break
    with atomic_path(path) as tmp:
        document.write_pdf(tmp)
    return path, step
